"""The cart-pole (scenes/cartpole.json with a motor on the slider) balanced by a
fixed LQR policy from random starts: 256 worlds, 10 s, no world needs a reset.
The gains come from the linearised equations of the scene's own masses (not from
the simulator), the loop uses only the ctrl array and the joint arrays, and the
starts are the scene's randomize.joint_q_noise / joint_qd_noise draws."""
import json

import numpy as np

import torpor
from conftest import ROOT

GEAR, U_MAX = 10.0, 2.0  # motor: force = gear * ctrl, ctrl in [-2, 2] (20 N)


def lqr_gain():
    """Continuous-time LQR of the cart-pole linearised about upright, K with
    F = -K s, s = (x, theta, xd, thetad). Masses and lengths are the scene's:
    cart M = 1 kg, pole m = 0.1 kg, a 0.05 x 0.05 x 1 m box hinged at its end
    (d = 0.5 m to its centre), slider damping b = 0.1 N s/m. Lagrange's
    equations linearised: [[M + m, m d], [m d, J]] (xdd, thdd) = (F - b xd, m g d th),
    J = I_c + m d^2. The Riccati equation is solved from the stable invariant
    subspace of the Hamiltonian matrix."""
    M, m, d, g, b = 1.0, 0.1, 0.5, 9.81, 0.1
    J = m * (1.0 + 0.05 ** 2) / 12.0 + m * d * d
    Minv = np.linalg.inv(np.array([[M + m, m * d], [m * d, J]]))
    A = np.zeros((4, 4))
    A[0, 2] = A[1, 3] = 1.0
    A[2:, 1] = Minv @ np.array([0.0, m * g * d])
    A[2:, 2] = Minv @ np.array([-b, 0.0])
    B = np.zeros((4, 1))
    B[2:, 0] = Minv @ np.array([1.0, 0.0])
    Q, R = np.diag([1.0, 10.0, 1.0, 1.0]), np.array([[0.05]])
    H = np.block([[A, -B @ np.linalg.inv(R) @ B.T], [-Q, -A.T]])
    w, V = np.linalg.eig(H)
    S = V[:, w.real < 0]
    P = np.real(S[4:] @ np.linalg.inv(S[:4]))
    return (np.linalg.inv(R) @ B.T @ P)[0]


def test_lqr_balances_256_random_cartpoles_for_10_s():
    scene = json.loads((ROOT / "scenes" / "cartpole.json").read_text())
    scene["actuators"] = [{"name": "push", "joint": "slider", "gear": GEAR, "ctrl_range": [-U_MAX, U_MAX]}]
    scene["randomize"] = {"seed": 3, "joint_q_noise": 0.1, "joint_qd_noise": 0.1}
    model = torpor.Model.from_json(json.dumps(scene), "cartpole-lqr")
    K = lqr_gain().astype(np.float32)
    batch = torpor.Batch(model, 256)
    q, qd = batch.joint_q, batch.joint_qd  # zero-copy views, read every step
    assert np.ptp(q[:, 1]) > 0.1, "the starts differ"
    decimation, dt = 2, 1.0 / 60.0
    worst = 0.0
    for _ in range(int(10.0 / (decimation * dt))):
        s = np.concatenate([q, qd], axis=1)  # (W, 4): x, theta, xd, thetad
        batch.set_ctrl(-(s @ K)[:, None] / GEAR)  # (W, 1), clamped to ctrl_range where it acts
        batch.step(decimation)
        worst = max(worst, float(np.abs(q[:, 1]).max()))
        # a world would need a reset if the pole fell past 0.5 rad or the cart hit its stops
        assert np.all(np.abs(q[:, 1]) < 0.5) and np.all(np.abs(q[:, 0]) < 2.3), "a cart-pole fell"
    assert np.all(np.abs(q[:, 1]) < 1e-3) and np.all(np.abs(q[:, 0]) < 1e-2), \
        f"balanced at the origin after 10 s: |theta| {np.abs(q[:, 1]).max()}, |x| {np.abs(q[:, 0]).max()}"
    assert worst < 0.3
