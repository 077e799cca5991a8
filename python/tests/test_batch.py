"""The torpor package over libtorpor: zero-copy views, writes, resets, errors."""
import warnings

import numpy as np
import pytest

import torpor
from torpor._ffi import ffi, lib

FIELDS = {  # name: (dtype, per body, trailing shape)
    "pos": (np.float32, True, (3,)), "quat": (np.float32, True, (4,)), "v": (np.float32, True, (3,)),
    "w": (np.float32, True, (3,)), "body_awake": (np.uint8, True, ()), "sleep_state": (np.uint8, True, ()),
    "quiet_timer": (np.float32, True, ()), "removed": (np.uint8, True, ()), "contact_f": (np.float32, True, (3,)),
    "island": (np.int32, True, ()), "awake_count": (np.int32, False, ()), "sleeping_count": (np.int32, False, ()),
    "checking_count": (np.int32, False, ()), "contact_overflow": (np.int32, False, ()), "faults": (np.uint8, False, ()),
}


def test_shapes_and_dtypes(tower):
    b = torpor.Batch(tower, worlds=5)
    s = b.state()
    assert (b.worlds, b.bodies) == (5, 11)
    for name, (dtype, per_body, tail) in FIELDS.items():
        a = getattr(s, name)
        assert a.dtype == dtype, name
        assert a.shape == ((5, 11) + tail if per_body else (5,)), name
        assert a.flags.c_contiguous and not a.flags.writeable, name


def test_views_are_the_batch_memory(tower):
    """No copy on the CPU: each array starts at the C view's pointer, and a view
    taken before a step shows the step."""
    b = torpor.Batch(tower, worlds=4)
    s = b.state()
    view = ffi.new("tp_state_view *")
    assert lib.tp_batch_state(b._ptr, view) == 0
    for name in FIELDS:
        assert getattr(s, name).__array_interface__["data"][0] == int(ffi.cast("uintptr_t", getattr(view, name))), name
    z0 = s.pos[:, 10, 2].copy()
    b.apply_impulses(np.broadcast_to([0.0, 0.0, 3.0], (4, b.bodies, 3)) * (np.arange(b.bodies) == 10)[None, :, None])
    b.step(10)
    # 3 m/s up for 1/6 s under gravity: 3 t - g t^2 / 2 = 0.36 m (the cube above it is gone)
    rise = s.pos[:, 10, 2] - z0
    assert np.all((rise > 0.3) & (rise < 0.42)), f"the old view does not show the step (a copy?): {rise}"
    assert np.shares_memory(s.pos, b.state().pos)
    with pytest.raises(ValueError):
        s.pos[0, 0, 0] = 1.0  # read-only: writes go through the API


def test_view_keeps_batch_alive(tower):
    pos = torpor.Batch(tower, worlds=2).state().pos  # the batch has no other reference
    assert pos.shape == (2, 11, 3) and np.isfinite(pos).all() and pos[0, 10, 2] > 9.0


def snapshot(b):
    s = b.state()
    return {name: getattr(s, name).copy() for name in ("pos", "quat", "v", "w", "sleep_state", "quiet_timer")}


def test_mask_reset_leaves_other_worlds_bit_identical(rand_model):
    b, ref = torpor.Batch(rand_model, worlds=6), torpor.Batch(rand_model, worlds=6)
    for x in (b, ref):
        x.step(30)
    mask = np.array([False, True, False, False, True, False])
    before = snapshot(b)
    b.reset(mask)
    after = snapshot(b)
    for name in before:
        assert before[name][~mask].tobytes() == after[name][~mask].tobytes(), name
        if name in ("pos", "quat"):  # a new draw (the rest may be at rest either way)
            assert before[name][mask].tobytes() != after[name][mask].tobytes(), name
    b.step(20)
    ref.step(20)
    for w in np.flatnonzero(~mask):
        assert b.world_hash(int(w)) == ref.world_hash(int(w))
    assert list(b.episodes) == [0, 1, 0, 0, 1, 0]


def test_resets_redraw_and_are_reproducible(rand_model):
    """Each reset is a new draw; the same seed and resets give the same bits at
    any world count; another seed gives other bits."""
    a, c = torpor.Batch(rand_model, worlds=4, seed=5), torpor.Batch(rand_model, worlds=11, seed=5)
    other = torpor.Batch(rand_model, worlds=4, seed=6)
    draws = [a.state().pos[2].copy()]
    for _ in range(3):
        for x in (a, c, other):
            x.reset([2])
        draws.append(a.state().pos[2].copy())
        assert a.state().pos[2].tobytes() == c.state().pos[2].tobytes()
        assert a.world_hash(2) == c.world_hash(2)
        assert a.world_hash(2) != other.world_hash(2)
    for i in range(4):
        for j in range(i):
            assert draws[i].tobytes() != draws[j].tobytes(), f"episodes {i} and {j} drew the same poses"
    assert a.episodes[2] == 3 and c.episodes[2] == 3 and a.episodes[0] == 0


def test_batched_writes_reach_only_selected_worlds(rand_model):
    b = torpor.Batch(rand_model, worlds=5)
    v0 = b.state().v.copy()
    J = np.zeros((2, b.bodies, 3), np.float32)
    J[:, 3, 0] = 1.0
    b.apply_impulses(J, worlds=[4, 1])
    v = b.state().v
    moved = np.flatnonzero(np.any(v != v0, axis=(1, 2)))
    assert list(moved) == [1, 4]
    # dv = J / m: a 0.4 m cube of 1000 kg/m^3 is 64 kg, its mass scaled by 0.8 .. 1.25
    assert 1.0 / (64 * 1.25) * 0.999 < v[1, 3, 0] < 1.0 / (64 * 0.8) * 1.001
    b.set_gravity([0.0, 0.0, -1.62], worlds=np.array([False, False, True, False, False]))
    assert b.gravity(2)[2] == np.float32(-1.62) and b.gravity(0)[2] == np.float32(-9.81)
    b.set_friction(0.0)  # broadcast to every world and body
    b.set_mass_scale(np.full((5, b.bodies), 2.0))


def test_reset_to_state(rand_model):
    src, b = torpor.Batch(rand_model, worlds=3), torpor.Batch(rand_model, worlds=3)
    src.step(25)
    s = src.state()
    b.reset_to_state(s.pos[1:2], s.quat[1:2], s.v[1:2], worlds=[0])
    got = b.state()
    assert got.pos[0, 1:].tobytes() == s.pos[1, 1:].tobytes()
    assert got.v[0, 1:].tobytes() == s.v[1, 1:].tobytes()
    assert b.episodes[0] == 1


def test_bad_inputs_raise_with_the_c_message(rand_model, tmp_path):
    b = torpor.Batch(rand_model, worlds=3)
    h = b.state_hash()
    f = np.zeros((3, b.bodies, 3), np.float32)
    f[2, 3, 1] = np.nan
    with pytest.raises(torpor.InvalidArgumentError, match=r"force\[2\]\[10\] \(world 2\) must be finite.*nothing"):
        b.apply_forces(f)
    with pytest.raises(torpor.InvalidArgumentError, match=r"tp_batch_apply_forces: select.indices\[0\] = 3 out of range"):
        b.apply_forces(np.zeros((1, b.bodies, 3)), worlds=[3])
    with pytest.raises(torpor.InvalidArgumentError, match=r"tp_batch_reset_worlds: select.indices\[1\] = 1 .*second time"):
        b.reset([1, 1])
    with pytest.raises(torpor.InvalidArgumentError, match="within"):
        b.set_gravity([0, 0, -600])
    # the package's own checks raise TorporError subclasses too (README: every failed call does)
    with pytest.raises(torpor.InvalidArgumentError, match="shape"):
        b.apply_forces(np.zeros((2, b.bodies, 3)))
    with pytest.raises(torpor.InvalidArgumentError, match="mask"):
        b.reset(np.array([True, False]))
    with pytest.raises(torpor.InvalidArgumentError, match="1-D array of world indices"):
        b.reset([[0, 1]])
    with pytest.raises(torpor.InvalidArgumentError, match="1-D list of world indices"):
        b.render(32, 32, [[0]])
    with pytest.raises(torpor.InvalidArgumentError, match="steps must be >= 0"):
        b.step(-1)
    assert b.state_hash() == h, "a refused call changed the batch"
    bad = tmp_path / "bad.json"
    bad.write_text('{"bodies": [{"size": [1, -1, 1]}]}')
    with pytest.raises(torpor.SceneError, match=r"bad.json:1:\d+: bodies\[0\]\.size"):
        torpor.Model.load(bad)
    with pytest.raises(OSError):
        torpor.Model.load(tmp_path / "missing.json")
    with pytest.raises(torpor.InvalidArgumentError, match="worlds"):
        torpor.Batch(rand_model, worlds=0)
    with pytest.raises(ValueError, match="backend"):
        torpor.Batch(rand_model, backend="tpu")
    b.close()
    with pytest.raises(ValueError, match="closed"):
        b.step()


@pytest.mark.skipif(torpor.cuda_device_count() > 0, reason="a CUDA device is present")
def test_cuda_backend_without_device_raises(rand_model):
    with pytest.raises(torpor.BackendError, match="cuda"):
        torpor.Batch(rand_model, backend="cuda")


def test_build_model_in_code():
    m = torpor.Model.build([{"name": "ground", "type": "static", "size": [10, 10, 1], "pos": [0, 0, -0.5]},
                            {"name": "ball", "shape": "ball", "size": [0.5, 0.5, 0.5], "pos": [0, 0, 2], "mass": 2.0}],
                           gravity=(0, 0, -9.81), dt=1 / 60)
    assert m.body_names == ["ground", "ball"] and m.find_body("ball") == 1 and list(m.body_types()) == [1, 0]
    b = torpor.Batch(m, worlds=2)
    b.step(30)  # 0.5 s of free fall: z = 2 - g t^2 / 2 = 0.774 m, within dt g t of it
    z = b.state().pos[:, 1, 2]
    assert np.all(np.abs(z - (2.0 - 0.5 * 9.81 * 0.25)) < 9.81 * 0.5 / 60)
    with pytest.raises(torpor.SceneError, match=r"^<Model\.build>: bodies\[0\]\.size\[1\]: must be > 0, got 0"):
        torpor.Model.build([{"size": [1, 0, 1]}])


def test_build_compound_body():
    # an L of two 2000 kg boxes (tests/test_compound.c derives the numbers by hand):
    # a foot [2, 1, 1] at the origin and a post [1, 1, 2] at (0.5, 0, 1.5)
    m = torpor.Model.build([{"shapes": [{"size": [2, 1, 1]}, {"size": [1, 1, 2], "pos": [0.5, 0, 1.5]}]},
                            {"inertia": [1, 2, 2.5], "com": [0.1, 0, 0]}])
    mass, com, inertia = ffi.new("float *"), ffi.new("float[3]"), ffi.new("float[6]")
    assert lib.tp_model_body_mass(m._ptr, 0, mass, ffi.NULL) == 0 and abs(mass[0] - 4000.0) < 1e-3
    lib.tp_model_body_inertia(m._ptr, 0, com, inertia)
    assert np.allclose(list(com), [0.25, 0, 0.75], atol=1e-6)
    assert np.allclose(list(inertia), [3416.6667, 4166.6667, 1416.6667, 0, -750, 0], rtol=1e-5, atol=1e-3)
    lib.tp_model_body_inertia(m._ptr, 1, com, inertia)
    assert list(inertia) == [1, 2, 2.5, 0, 0, 0] and abs(com[0] - 0.1) < 1e-7
    with pytest.raises(torpor.SceneError, match=r"bodies\[0\]\.shapes\[0\]\.size\[1\]: must be > 0"):
        torpor.Model.build([{"shapes": [{"size": [1, -1, 1]}]}])


def test_build_convex_body():
    # a corner tetrahedron of legs 0.3 m: V = a^3 / 6, centre a / 4 on each axis,
    # central I_xx = 3 m a^2 / 40 (tests/test_convex.c derives it)
    a, rho = 0.3, 1000.0
    tet = [[0, 0, 0], [a, 0, 0], [0, a, 0], [0, 0, a]]
    m = torpor.Model.build([{"shape": "convex", "vertices": tet, "density": rho},
                            {"shapes": [{"shape": "convex", "vertices": tet, "pos": [1, 0, 0]}], "density": rho}])
    mass, com, inertia = ffi.new("float *"), ffi.new("float[3]"), ffi.new("float[6]")
    for body, centre in ((0, a / 4), (1, 1 + a / 4)):
        lib.tp_model_body_mass(m._ptr, body, mass, ffi.NULL)
        lib.tp_model_body_inertia(m._ptr, body, com, inertia)
        want = rho * a ** 3 / 6
        assert abs(mass[0] - want) < 1e-6 * want and abs(com[0] - centre) < 1e-6
        assert abs(inertia[0] - 3 * want * a * a / 40) < 1e-5 * want * a * a
    with pytest.raises(torpor.SceneError, match=r"bodies\[0\]\.vertices: .*one plane"):
        torpor.Model.build([{"shape": "convex", "vertices": [[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0]]}])
    with pytest.raises(torpor.SceneError, match=r"bodies\[0\]\.vertices\[0\]: must be an array"):
        torpor.Model.build([{"shape": "convex", "vertices": [0, 1, 2]}])


def test_build_refuses_wrong_lengths_and_names():
    # the scene loader reads what build is given: a vector of the wrong length (once
    # taken in part), an empty shape list (once a plain box), an unknown name or key
    # are refused at their key path, without the line:col of a text the caller never saw
    bad = [
        ({"size": [1, 1]}, r"bodies\[0\]\.size: must have 3 elements, got 2"),
        ({"pos": [0, 0, 1, 0]}, r"bodies\[0\]\.pos: must have 3 elements, got 4"),
        ({"inertia": [1, 1, 1, 0.5]}, r"bodies\[0\]\.inertia: must be an array of 3 numbers \(the diagonal\) or 6"),
        ({"inertia": [1, 1, 1, 0, 0, 0, 0]}, r"bodies\[0\]\.inertia: must be an array of 3 .* got 7"),
        ({"shapes": []}, r"bodies\[0\]\.shapes: must hold 1 to 8 shapes, got 0"),
        ({"shapes": [{"pos": [1, 1]}]}, r"bodies\[0\]\.shapes\[0\]\.pos: must have 3 elements, got 2"),
        ({"shapes": [{"shape": "cone"}]}, r"bodies\[0\]\.shapes\[0\]\.shape: unknown shape \"cone\""),
        ({"type": "dynamc"}, r"bodies\[0\]\.type: unknown body type \"dynamc\""),
        ({"type": "static", "static": True}, r"bodies\[0\]\.type: give either \"type\" or"),
        ({"shape": "cube"}, r"bodies\[0\]\.shape: unknown shape \"cube\""),
        ({"sise": [1, 1, 1]}, r"bodies\[0\]\.sise: unknown key; did you mean \"size\"\?"),
    ]
    for body, message in bad:
        with pytest.raises(torpor.SceneError, match=rf"^<Model\.build>: {message}"):
            torpor.Model.build([body])


def test_step_counts_take_numpy_integers(rand_model):
    """A NumPy integer or a 0-d integer array is a step count, as int() takes them; a
    0-d float array is not."""
    b = torpor.Batch(rand_model, worlds=2)
    b.step(np.int64(1))
    b.step(np.array(2))
    assert b.step_count == 3
    with pytest.raises(torpor.InvalidArgumentError, match=r"^steps must be an integer, got "):
        b.step(np.array(1.0))


def test_messages_name_the_callers_value(rand_model):
    """Review item: values past float32 said "got inf" (with a RuntimeWarning), seed=-1 raised
    OverflowError, step(1.5) ran one step, an int 0/1 "mask" said only "second time", and
    render(0, 0) said "NULL rgb"."""
    b = torpor.Batch(rand_model, worlds=4)
    h = b.state_hash()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no NumPy overflow warning: checked before the cast
        with pytest.raises(torpor.InvalidArgumentError, match=r"^gravity\[2\]: 1e\+39 is past float32's range"):
            b.set_gravity([0, 0, 1e39])
        with pytest.raises(torpor.InvalidArgumentError, match=r"^gravity\[1, 0\]: -1e\+300 is past float32's range"):
            b.set_gravity(np.array([[0, 0, -9.81], [-1e300, 0, 0]]), worlds=[0, 2])
        with pytest.raises(torpor.InvalidArgumentError, match=r"^force: 1e\+39 is past float32's range"):
            b.apply_forces(10 ** 39)
    with pytest.raises(torpor.InvalidArgumentError, match=r"^seed must be in \[0, 2\*\*64 - 1\] \(a uint64\), got -1"):
        torpor.Batch(rand_model, seed=-1)
    with pytest.raises(torpor.InvalidArgumentError, match=r"got 18446744073709551616"):
        torpor.Batch(rand_model, seed=2 ** 64)
    with pytest.raises(torpor.InvalidArgumentError, match=r"^seed must be an integer, got 1.5 \(float\)"):
        torpor.Batch(rand_model, seed=1.5)
    assert torpor.Batch(rand_model, seed=np.uint64(2 ** 64 - 1)).seed == 2 ** 64 - 1
    for steps in (1.5, 2.0, True, "2"):
        with pytest.raises(torpor.InvalidArgumentError, match=r"^steps must be an integer, got "):
            b.step(steps)
    with pytest.raises(torpor.InvalidArgumentError, match=r"worlds\[2\] = 1 names world 1 a second time: an int array "
                                                          r"is a list of world indices; a mask must be a bool array"):
        b.reset(np.array([1, 0, 1, 0]))
    for size in ((0, 0), (15, 100), (100, 8193), (10 ** 7, 10 ** 7)):
        with pytest.raises(torpor.InvalidArgumentError, match=rf"^render: size {size[0]} x {size[1]} \(width x height\) "
                                                              r"is outside \[16, 8192\] pixels each"):
            b.render(*size)
    with pytest.raises(torpor.InvalidArgumentError, match=r"^width must be an integer, got 64.5"):
        b.render(64.5, 64)
    assert b.state_hash() == h and b.step_count == 0 and not b.episodes.any(), "a refused call changed the batch"
    b.step(np.int64(2))
    b.reset(np.array([1, 0]))  # an int array stays a list of indices
    assert b.step_count == 2 and b.episodes.tolist() == [1, 1, 0, 0]
