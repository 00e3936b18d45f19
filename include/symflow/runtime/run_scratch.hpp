#pragma once
// The buffers one run of a plan needs besides the tensors' own memory, kept by the
// plan and reused by its later runs; concurrent runs of one plan each take their own.

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <vector>

#include "symflow/backend/variable_store.hpp"
#include "symflow/core/value.hpp"
#include "symflow/runtime/fused_step.hpp"
#include "symflow/runtime/plan.hpp"
#include "symflow/runtime/run_state.hpp"
#include "symflow/runtime/schedule.hpp"

namespace symflow::detail {

// A step's reference inputs (kernel arguments that are not in the scratch's `args`);
// each thread of a run has its own.
struct StepBuffers {
  std::vector<std::shared_ptr<VariableSlot>> ref_inputs;
  void clear() {
    for (auto& r : ref_inputs) r.reset();
  }
};

// Which steps of a run on several threads are ready, done, or waiting; guarded by
// `mutex`, except the reader counts, which the threads count down as they read.
struct StepQueue {
  std::mutex mutex;
  std::condition_variable wake;
  std::vector<std::uint32_t> waiting_for;  // by step: unfinished predecessors
  std::vector<std::uint32_t> ready;        // every step enters once: a queue that never wraps
  std::size_t head = 0, tail = 0, finished = 0;
  std::exception_ptr error;  // the first step that failed; the others are not started
  std::unique_ptr<std::atomic<std::int32_t>[]> readers_left;  // by slot
  std::size_t num_slots = 0;

  void start(const Schedule& s) {
    waiting_for = s.predecessor_count;
    ready.resize(waiting_for.size());
    head = tail = finished = 0;
    error = nullptr;
    for (std::size_t step = 0; step < waiting_for.size(); ++step)
      if (waiting_for[step] == 0) ready[tail++] = static_cast<std::uint32_t>(step);
    if (num_slots != s.slot_readers.size()) {
      num_slots = s.slot_readers.size();
      readers_left = std::make_unique<std::atomic<std::int32_t>[]>(num_slots);
    }
    for (std::size_t i = 0; i < num_slots; ++i)
      readers_left[i].store(s.slot_readers[i], std::memory_order_relaxed);
  }
};

// One run's buffers, sized for one plan when made.
struct RunScratch {
  TensorSlots slots;
  // Every step's value inputs, at input_begin[step]: a kernel reads its inputs here.
  // The InputMode::constant ones hold the Const's value from the start, and keep it.
  std::vector<Value> args;
  std::vector<StepBuffers> threads;  // [0]: the calling thread's
  std::vector<ClusterRun> cluster_runs;
  StepQueue queue;
  std::vector<std::uint8_t> dead_steps;  // by step, for a plan with dead tensors

  // Before a run of a plan with dead tensors: nothing is dead yet.
  void start_dead_flags() {
    std::fill(slots.dead.begin(), slots.dead.end(), std::uint8_t{0});
    std::fill(dead_steps.begin(), dead_steps.end(), std::uint8_t{0});
  }

  explicit RunScratch(const Plan& plan) {
    slots.resize(plan.num_slots);
    args.resize(plan.input_slots.size());
    for (std::size_t step = 0; step < plan.steps.size(); ++step) {
      const PlanStep& s = plan.steps[step];
      for (std::uint32_t k = s.first_input; k < s.first_input + s.num_inputs; ++k) {
        if (plan.input_modes[k] != InputMode::constant) continue;
        const std::uint32_t slot = plan.input_slots[k];
        // The producer: the step whose outputs start at or below the slot, last.
        const auto it =
            std::upper_bound(plan.output_slot.begin(), plan.output_slot.end(), slot) - 1;
        args[k] = plan.constants[static_cast<std::size_t>(it - plan.output_slot.begin())];
      }
    }
    size_threads(1, plan);
    if (plan.dead_tensors) dead_steps.resize(plan.steps.size());
    cluster_runs.resize(plan.fusion.clusters.size());
    for (std::size_t k = 0; k < cluster_runs.size(); ++k)
      cluster_runs[k].size_for(plan.fusion.clusters[k]);
  }
  void size_threads(std::size_t n, const Plan& plan) {
    if (threads.size() < n) threads.resize(n);
    for (StepBuffers& b : threads) b.ref_inputs.resize(plan.max_inputs);
  }
};

// The scratch buffers a plan keeps for its runs: one ready for the next run without a
// lock, and more for runs that overlap.
class ScratchPool {
 public:
  ScratchPool() = default;
  ScratchPool(const ScratchPool&) = delete;
  ScratchPool& operator=(const ScratchPool&) = delete;
  ~ScratchPool() { delete idle_.load(std::memory_order_acquire); }

  std::unique_ptr<RunScratch> take(const Plan& plan) {
    if (RunScratch* s = idle_.exchange(nullptr, std::memory_order_acquire))
      return std::unique_ptr<RunScratch>(s);
    {
      std::lock_guard lock(mutex_);
      if (!more_.empty()) {
        auto s = std::move(more_.back());
        more_.pop_back();
        return s;
      }
    }
    return std::make_unique<RunScratch>(plan);
  }
  void give_back(std::unique_ptr<RunScratch> s) {
    RunScratch* expected = nullptr;
    if (idle_.compare_exchange_strong(expected, s.get(), std::memory_order_release,
                                      std::memory_order_relaxed)) {
      s.release();
      return;
    }
    std::lock_guard lock(mutex_);
    more_.push_back(std::move(s));
  }

 private:
  std::atomic<RunScratch*> idle_{nullptr};
  std::mutex mutex_;
  std::vector<std::unique_ptr<RunScratch>> more_;
};

// Takes a scratch from the plan's pool (a fresh one for a plan without a pool) and
// gives it back at scope exit; the run empties it first.
class ScratchLease {
 public:
  explicit ScratchLease(const Plan& plan)
      : pool_(static_cast<ScratchPool*>(plan.scratch.get())),
        scratch_(pool_ ? pool_->take(plan) : std::make_unique<RunScratch>(plan)) {}
  ~ScratchLease() {
    if (pool_) pool_->give_back(std::move(scratch_));
  }
  ScratchLease(const ScratchLease&) = delete;
  ScratchLease& operator=(const ScratchLease&) = delete;
  RunScratch& operator*() const { return *scratch_; }

 private:
  ScratchPool* pool_;
  std::unique_ptr<RunScratch> scratch_;
};

// Gives a plan its scratch pool (make_plan's caller does it once).
inline void attach_scratch(Plan& plan) { plan.scratch = std::make_shared<ScratchPool>(); }

}  // namespace symflow::detail
