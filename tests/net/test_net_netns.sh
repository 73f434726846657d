#!/bin/sh
# NET-TEST-1: one tensor between two network stacks: two network namespaces
# joined by a veth pair, the receiver in one, the sender in the other, UCX
# over TCP on the veth link (a real TCP connection between two stacks, not
# loopback). Traffic stays inside the namespaces this test creates, which it
# removes on exit. Needs root and iproute2; says SKIP and why without them.
#
# Usage: test_net_netns.sh HURRAY_NET_DEMO
set -eu
demo=$1

skip() { echo "SKIP: $*"; exit 77; }
[ "$(id -u)" -eq 0 ] || skip "creating network namespaces needs root (running as uid $(id -u))"
command -v ip >/dev/null 2>&1 || skip "no ip command (Debian package iproute2)"

tag=$$
ns_a="hurray-net-a-$tag"
ns_b="hurray-net-b-$tag"
veth_a="hva$tag"
veth_b="hvb$tag"
work=$(mktemp -d)
cleanup() {
  ip netns del "$ns_a" 2>/dev/null || true
  ip netns del "$ns_b" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT INT TERM

ip netns add "$ns_a" 2>"$work/err" || skip "ip netns add: $(cat "$work/err")"
ip netns add "$ns_b"
ip link add "$veth_a" type veth peer name "$veth_b" 2>"$work/err" ||
  skip "ip link add type veth: $(cat "$work/err")"
ip link set "$veth_a" netns "$ns_a"
ip link set "$veth_b" netns "$ns_b"
ip -n "$ns_a" addr add 10.211.0.1/30 dev "$veth_a"
ip -n "$ns_b" addr add 10.211.0.2/30 dev "$veth_b"
for ns in "$ns_a" "$ns_b"; do
  ip -n "$ns" link set lo up
done
ip -n "$ns_a" link set "$veth_a" up
ip -n "$ns_b" link set "$veth_b" up

# The receiver, in namespace a, on the veth address only.
UCX_TLS=tcp UCX_NET_DEVICES="$veth_a" \
  ip netns exec "$ns_a" "$demo" receive 10.211.0.1 "$work/port" >"$work/receiver.out" 2>&1 &
receiver=$!
tries=0
while [ ! -s "$work/port" ]; do
  tries=$((tries + 1))
  if [ "$tries" -gt 2000 ] || ! kill -0 "$receiver" 2>/dev/null; then
    cat "$work/receiver.out"
    echo "FAIL: the receiver did not start listening"
    exit 1
  fi
  sleep 0.01
done
port=$(cat "$work/port")

status=0
UCX_TLS=tcp UCX_NET_DEVICES="$veth_b" \
  ip netns exec "$ns_b" "$demo" send 10.211.0.1 "$port" 16 || status=$?
receiver_status=0
wait "$receiver" || receiver_status=$?
cat "$work/receiver.out"
[ "$status" -eq 0 ] || { echo "FAIL: the sender exited $status"; exit 1; }
[ "$receiver_status" -eq 0 ] || { echo "FAIL: the receiver exited $receiver_status"; exit 1; }
# The bytes crossed the veth link: the receiver's lane is tcp on its veth.
grep -q "tcp/$veth_a" "$work/receiver.out" ||
  { echo "FAIL: the receiver's lanes do not name tcp/$veth_a"; exit 1; }
grep -q "every byte as sent" "$work/receiver.out" || { echo "FAIL: bytes differ"; exit 1; }
echo "PASS: 16 MiB + 4 KiB from namespace $ns_b to $ns_a over $veth_b -> $veth_a"
