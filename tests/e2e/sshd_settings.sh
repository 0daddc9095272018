#!/usr/bin/env bash
# Table test of share/sshd-settings.sh (the check install.sh runs for every `--user NAME`):
# each row of tests/e2e/sshd_settings.tsv is a configuration that sshd itself reads (`sshd -T`,
# with a throwaway host key), and the settings the script warns about must be exactly the row's.
# Also: an unreadable configuration is exit 2 with a message, never a silent "safe". Needs sshd
# and root (sshd reads the host key). Prints one line per check and "N passed, N failed, N
# skipped"; exits non-zero on any failure.
set -euo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
CHECKER=$REPO/share/sshd-settings.sh
USER_CHECKED=nobody
T=$(mktemp -d /tmp/gsh-sshd-settings.XXXXXX)
trap 'rm -rf "$T"' EXIT
# shellcheck source=tests/e2e/checks.sh
. "$REPO/tests/e2e/checks.sh"

if [[ $(id -u) != 0 ]]; then
	echo "SKIP: run as root (sshd -T reads the host key)"
	exit 77
fi
if ! PATH=/usr/sbin:$PATH command -v sshd >/dev/null; then
	echo "SKIP: sshd is not installed (apt-get install openssh-server)"
	exit 77
fi
mkdir -p /run/sshd
ssh-keygen -q -t ed25519 -N '' -f "$T/host_key"
# The safe base: what docs/ssh.md asks for, each forwarding kind off by name as well (sshd's
# defaults allow agent and stream-local forwarding once DisableForwarding is no). No Subsystem
# line: sshd refuses a second one for the same name, and rows bring their own.
base="HostKey $T/host_key
PermitUserRC no
PermitUserEnvironment no
DisableForwarding yes
AllowTcpForwarding no
AllowStreamLocalForwarding no
AllowAgentForwarding no
X11Forwarding no
PermitTunnel no
AcceptEnv LANG LC_*"

# The setting names of the script's warning lines, in order, space-separated.
warned() { sed -n 's/^sshd-settings:   warning: \([A-Za-z0-9]*\) .*/\1/p' "$1" | paste -sd' ' -; }

rows=0
while IFS=$'\t' read -r name global match expected; do
	[[ -z $name || $name == '#'* || $name == name ]] && continue
	rows=$((rows + 1))
	config=$T/row$rows.conf
	{
		[[ $global == - ]] || printf '%b\n' "$global"
		printf '%s\n' "$base"
		[[ $match == - ]] || printf '%b\n' "$match"
	} >"$config"
	rc=0
	"$CHECKER" --sshd-config "$config" "$USER_CHECKED" 2>"$T/row$rows.out" || rc=$?
	got=$(warned "$T/row$rows.out")
	[[ $expected != - ]] || expected=""
	want_rc=0
	[[ -z $expected ]] || want_rc=1
	if [[ $got == "$expected" && $rc == "$want_rc" ]]; then
		pass "$name"
	else
		fail "$name" "warned [$got] exit $rc, expected [$expected] exit $want_rc; $config, $T/row$rows.out"
		trap - EXIT
	fi
done <"$REPO/tests/e2e/sshd_settings.tsv"
check "the table has rows" test "$rows" -ge 20

# Debian 12's stock sshd_config over sshd's own defaults (PermitUserRC and every forwarding kind
# but tunnels are on by default): what an operator who changed nothing gets warned about.
printf '%s\n' "HostKey $T/host_key" "KbdInteractiveAuthentication no" "UsePAM yes" \
	"X11Forwarding yes" "PrintMotd no" "AcceptEnv LANG LC_*" \
	"Subsystem sftp /usr/lib/openssh/sftp-server" >"$T/stock.conf"
rc=0
"$CHECKER" --sshd-config "$T/stock.conf" "$USER_CHECKED" 2>"$T/stock.out" || rc=$?
check "Debian's stock configuration: exit 1" test "$rc" = 1
check "Debian's stock configuration: rc and every forwarding kind warned" test \
	"$(warned "$T/stock.out")" = \
	"PermitUserRC AllowTcpForwarding AllowStreamLocalForwarding AllowAgentForwarding X11Forwarding"

rc=0
"$CHECKER" --sshd-config "$T/missing.conf" "$USER_CHECKED" 2>"$T/missing.out" || rc=$?
check "a configuration sshd cannot read: exit 2" test "$rc" = 2
check "a configuration sshd cannot read: says so, and where to check by hand" \
	grep -q "could not read sshd's settings.*check them by hand" "$T/missing.out"
check "a configuration sshd cannot read: no 'safe'" bash -c "! grep -q safe '$T/missing.out'"
printf 'NoSuchKeyword yes\n%s\n' "$base" >"$T/bad.conf"
rc=0
"$CHECKER" --sshd-config "$T/bad.conf" "$USER_CHECKED" 2>"$T/bad.out" || rc=$?
check "a configuration sshd refuses: exit 2 with sshd's reason" bash -c \
	"test $rc = 2 && grep -q 'NoSuchKeyword' '$T/bad.out'"
rc=0
"$CHECKER" --sshd-config "$T/row1.conf" "$USER_CHECKED" root 2>"$T/two.out" || rc=$?
check "two users: one verdict line each" test "$(grep -c '^sshd-settings: user ' "$T/two.out")" = 2

echo "$passed passed, $failed failed, $skipped skipped"
[[ $failed == 0 ]]
