# shellcheck shell=sh
# bounds.sh - fragd and its knobs, under a fragmenting workload:
#  1. fragd --dry-run: not a single knob changes
#  2. fragd: every knob stays within /vm/bounds.conf while it runs (sampled
#     every second) and is back at its original value after SIGTERM
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. /vm/lib.sh

POLICY=fragd
thp_setup madvise never
fragd_require
knobs_snapshot >/tmp/knobs.orig
log "knobs: $(tr '\n' ' ' </tmp/knobs.orig)"
fragmenter_start --chunk-mb 16 --churn 2 --interval-ms 100 --report 0
consumer --mb 256 --cycles 1000 --interval-ms 500 >/tmp/consumer.out &
bg_started $!

# 1. dry run
set --
[ -f /etc/fragd.conf ] && set -- -c /etc/fragd.conf
fragd "$@" --dry-run >/tmp/fragd-dry.log 2>&1 &
dry=$!
: >/tmp/knobs.dry
i=0
while [ $i -lt "${FVM_SECONDS:-10}" ]; do
	sleep 1
	knobs_snapshot >>/tmp/knobs.dry
	i=$((i + 1))
done
kill -TERM "$dry"
rc=0
wait "$dry" || rc=$?
if [ "$rc" -eq 0 ]; then pass "fragd --dry-run exited 0 on SIGTERM"; else fail "fragd --dry-run exit status $rc"; fi
if [ "$(sort -u /tmp/knobs.dry | wc -l)" -eq "$(wc -l </tmp/knobs.orig)" ] &&
	! sort -u /tmp/knobs.dry | grep -qvxFf /tmp/knobs.orig; then
	pass "fragd --dry-run changed no knob"
else
	fail "fragd --dry-run changed knobs:"
	sort -u /tmp/knobs.dry | grep -vxFf /tmp/knobs.orig || true
fi

# 2. the real thing
fragd_start
: >/tmp/knobs.during
i=0
while [ $i -lt "${FVM_SECONDS:-10}" ]; do
	sleep 1
	knobs_snapshot >>/tmp/knobs.during
	i=$((i + 1))
done
# grep finds nothing when fragd had no reason to change a knob: that is fine
changed=$(sort -u /tmp/knobs.during | { grep -vxFf /tmp/knobs.orig || true; } | tr '\n' ' ')
log "values fragd set: ${changed:-none}"
if knobs_in_bounds /tmp/knobs.during; then pass "every knob within bounds while fragd ran"; fi
fragd_stop
cleanup
result "changed=$(echo "$changed" | wc -w) fails=$FAILS"
finish
