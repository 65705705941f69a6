# Sourced by the benches that run `radial shell` (mptcp.sh, wakes.sh): the
# release build, a scratch directory removed on exit with the files to
# serve and a configuration directory of its own, and the servers' address.
cargo build --release -q -p radial
radial=$PWD/target/release/radial
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export XDG_CONFIG_HOME="$work/config"
mkdir -p "$work/files"
server=10.255.0.1
