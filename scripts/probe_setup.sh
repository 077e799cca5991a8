# probe_setup.sh - sourced by the scripts that build a small probe program
# against libtorpor (callgrind_tower.sh, callgrind_color.sh,
# manifold_reuse.sh): `probe_setup SCENE` makes a temporary directory $tmp,
# removed when the script exits, and writes there scene.json, a copy of SCENE
# with sleep off (the probes time or count a scene that stays awake).
probe_setup() {
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
    python3 -c "import json,sys; d=json.load(open(sys.argv[1])); d.setdefault('sleep',{})['enabled']=False; json.dump(d,open(sys.argv[2],'w'))" \
        "$1" "$tmp/scene.json"
}
