#!/usr/bin/env bash
# ctest mpi.resume: a data-parallel job killed midway and relaunched ends with the variables
# of a job that was never killed, bit for bit (resume_test.cpp says what each run does).
#
#   resume_test.sh MPIEXEC RESUME_TEST WORK_DIR [NP]
set -u
mpiexec=$1 program=$2 work=$3 np=${4:-2}
steps=6 kill_at=3

rm -rf "$work"
mkdir -p "$work/uninterrupted" "$work/resumed"
fail() {
  echo "FAIL: $*"
  exit 1
}

echo "== uninterrupted: $steps steps"
"$mpiexec" -n "$np" "$program" "$work/uninterrupted" "$steps" || fail "the uninterrupted job failed"

echo "== killed: rank 0 dies at step $kill_at, before its checkpoint"
if "$mpiexec" -n "$np" "$program" "$work/resumed" "$steps" "$kill_at" >"$work/killed.out" 2>&1; then
  cat "$work/killed.out"
  fail "the job meant to be killed exited 0"
fi
cat "$work/killed.out"
grep -q "killing rank 0 at step $kill_at" "$work/killed.out" || fail "rank 0 was not killed"
[ -e "$work/resumed/final.bin" ] && fail "the killed job finished"
# The newest checkpoint is the step before the kill.
grep -q "^model_checkpoint_path: \".*model-$((kill_at - 1))\"" "$work/resumed/checkpoint" ||
  fail "the killed job's newest checkpoint is not model-$((kill_at - 1)): $(cat "$work/resumed/checkpoint")"

echo "== relaunched on the killed job's directory"
"$mpiexec" -n "$np" "$program" "$work/resumed" "$steps" >"$work/resumed.out" 2>&1
status=$?
cat "$work/resumed.out"
[ $status -eq 0 ] || fail "the relaunched job failed"
grep -q "^resumed from .*model-$((kill_at - 1)) at step $((kill_at - 1))$" "$work/resumed.out" ||
  fail "the relaunched job did not resume from step $((kill_at - 1))"

cmp "$work/uninterrupted/final.bin" "$work/resumed/final.bin" ||
  fail "the resumed job's variables differ from the uninterrupted job's"
# Training moved the variables: a job of fewer steps ends elsewhere.
mkdir -p "$work/shorter"
"$mpiexec" -n "$np" "$program" "$work/shorter" $((steps - 1)) >/dev/null || fail "the shorter job failed"
cmp -s "$work/uninterrupted/final.bin" "$work/shorter/final.bin" &&
  fail "$((steps - 1)) and $steps steps end with the same variables"
echo "PASS: resumed from step $((kill_at - 1)) of $steps, variables equal bit for bit" \
  "($(stat -c %s "$work/resumed/final.bin") bytes)"
