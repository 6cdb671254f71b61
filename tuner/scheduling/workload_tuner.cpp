#include "tuner/scheduling/workload_tuner.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "core/median.h"
#include "tuner/compile/autoscheduler_config.h"
#include "tuner/compile/autoscheduler_input.h"
#include "tuner/compile/kernel_compiler.h"
#include "tuner/compile/usable_record.h"
#include "tuner/report/convergence_csv.h"
#include "tuner/runners/local_runner.h"

namespace nee {

namespace fs = std::filesystem;

namespace {

// Each candidate's library lives in a folder of its own, needed only until it is measured.
void remove_build_folders(const std::vector<BuildResult>& builds) {
  for (const BuildResult& b : builds) {
    std::error_code ignored;
    fs::remove_all(fs::path(b.artifact).parent_path(), ignored);
  }
}

}  // namespace

WorkloadTuner::WorkloadTuner(TuningDatabase& db, const Workload& workload, const Target& target,
                             const TuneOptions& options, uint64_t seed)
    : db_(db),
      workload_(workload),
      target_(target),
      options_(options),
      space_(make_schedule_space(workload, target)),
      rng_(seed),
      default_config_(space_->default_config()),
      builder_(options.work_dir + "/" + workload.hash(), options.build_jobs, options.build_timeout_s,
               options.object_cache),
      runner_(options.measurer ? options.measurer : std::make_shared<LocalRunner>(options.runner)) {
  report_.workload = workload;
  report_.strategy = options.strategy;
  strategy_ = make_search_strategy(options.strategy, *space_, rng_(), workload, target);
  const std::vector<TuningRecord> history = db.history(workload, target);
  for (const TuningRecord& r : history) {
    stored_.insert(r.config);
    const bool ok = r.result.status == MeasureStatus::ok;
    if (const std::optional<std::string> autoscheduler = autoscheduler_of(r.config)) {
      if (ok) report_.baselines[*autoscheduler] = r;
      continue;
    }
    // A point outside today's space (stored by an older NEE) cannot be proposed again.
    if (!space_->check(r.config).empty()) continue;
    // A point stored before a knob was added is the same point with that knob's absent value.
    const ScheduleConfig config = space_->complete(r.config);
    stored_.insert(config);
    strategy_->observe(config, r.result);
    if (ok && (!search_best_us_ || r.result.median_us < *search_best_us_)) search_best_us_ = r.result.median_us;
    if (ok && config == default_config_) report_.default_record = r;
  }
  report_.best = best_usable_record(db, workload, target, *space_);
  trial_ = static_cast<int>(history.size());
}

std::optional<double> WorkloadTuner::best_us() const {
  if (!report_.best) return std::nullopt;
  return report_.best->ranked_us();
}

RoundResult WorkloadTuner::run_round(int count, const std::function<bool()>& stop,
                                     const std::function<void()>& after_each) {
  round_started_ = std::chrono::steady_clock::now();
  RoundResult round;
  round.start_us = best_us();
  const int measured_before = report_.measured;
  round_start_us_ = round.start_us;
  measured_in_round_ = 0;

  const bool default_pending = options_.measure_default && !strategy_->seen(default_config_);
  // count 0: a model's first round of a workload, its default point alone: no transferred
  // points and no baselines yet (Adams2019's compiles of ResNeXt's large convs took 75 s
  // each, so first rounds with them gave 8 of 28 workloads a time in 10 minutes).
  const bool default_only = count == 0;
  if (!seeded_ && options_.transfer_seeds > 0 && !default_only) {
    // Looked up at the first round that searches, so that in a model's run the workloads
    // tuned earlier seed the ones tuned later.
    const auto measured_here = [this](const ScheduleConfig& c) { return stored_.count(c) || strategy_->seen(c); };
    for (TransferSeed& s : transfer_seeds(db_, workload_, target_, *space_, options_.transfer_seeds, measured_here)) {
      seeds_.push_back(std::move(s));
    }
    if (strategy_->learns_from_similar()) {
      for (const TuningRecord& r : similar_records_here(db_, workload_, target_)) strategy_->learn_from_similar(r);
    }
    seeded_ = true;
  }

  std::vector<Candidate> batch;
  std::set<ScheduleConfig> in_batch;
  const std::optional<int64_t> parent = report_.best ? std::optional<int64_t>(report_.best->id) : std::nullopt;
  if (default_pending) {
    batch.push_back({workload_, target_, default_config_, "default", 0, std::nullopt});
    in_batch.insert(default_config_);
  }
  while (static_cast<int>(batch.size()) < count && !seeds_.empty()) {
    TransferSeed seed = std::move(seeds_.front());
    seeds_.pop_front();
    if (strategy_->seen(seed.config) || !in_batch.insert(seed.config).second) continue;
    batch.push_back({workload_, target_, std::move(seed.config), "transfer", 0, seed.source.id});
  }
  for (const Candidate& c : batch) strategy_->start_from(c.config);
  const int wanted = count - static_cast<int>(batch.size());
  if (wanted > 0) {
    const std::vector<ScheduleConfig> proposed = strategy_->propose(wanted);
    if (proposed.empty() && seeds_.empty()) exhausted_ = true;
    for (const ScheduleConfig& c : proposed) {
      // A transferred point of this batch may also have been proposed.
      if (in_batch.insert(c).second) batch.push_back({workload_, target_, c, strategy_->name(), 0, parent});
    }
  }
  if (!batch.empty()) measure(batch, builder_, stop, after_each, false);

  std::vector<Candidate> baselines;
  if (options_.baselines && !default_only && target_.kind() == TargetKind::cpu && has_autoscheduler_input(workload_.op)) {
    for (const std::string& name : autoscheduler_names()) {
      const ScheduleConfig config = autoscheduler_config(name);
      if (!stored_.count(config) && !skipped_baselines_.count(name)) {
        baselines.push_back({workload_, target_, config, autoscheduler_strategy(name), 0, std::nullopt});
      }
    }
  }
  if (!baselines.empty() && (measured_in_round_ == 0 || !stop())) {
    if (!baseline_builder_) {
      baseline_builder_ = std::make_unique<Builder>(options_.work_dir + "/" + workload_.hash() + "-baselines",
                                                    options_.build_jobs, options_.baseline_build_timeout_s,
                                                    options_.object_cache);
    }
    const auto baselines_started = std::chrono::steady_clock::now();
    measure(baselines, *baseline_builder_, stop, after_each, true);
    baseline_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - baselines_started).count();
  }

  round.measured = report_.measured - measured_before;
  round.start_us = round_start_us_;
  round.best_us = best_us();
  report_.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - round_started_).count();
  return round;
}

void WorkloadTuner::keep_claimed(std::vector<Candidate>& batch, bool baseline) {
  std::vector<Candidate> claimed;
  std::set<ScheduleConfig> stored_elsewhere;
  for (Candidate& c : batch) {
    const ScheduleClaim claim = db_.claim(workload_, target_, c.config);
    if (claim == ScheduleClaim::claimed) {
      claimed.push_back(std::move(c));
      continue;
    }
    if (claim == ScheduleClaim::measured) {
      stored_.insert(c.config);
      stored_elsewhere.insert(c.config);
    }
    if (!baseline) strategy_->pass_over(c.config);
  }
  batch = std::move(claimed);
  if (baseline || stored_elsewhere.empty()) return;
  for (const TuningRecord& r : db_.history(workload_, target_)) {
    if (!stored_elsewhere.count(r.config)) continue;
    strategy_->observe(r.config, r.result);
    if (r.result.status == MeasureStatus::ok && r.config == default_config_) report_.default_record = r;
  }
}

void WorkloadTuner::measure(std::vector<Candidate>& batch, Builder& builder, const std::function<bool()>& stop,
                            const std::function<void()>& after_each, bool baseline) {
  keep_claimed(batch, baseline);
  if (batch.empty()) return;
  const std::vector<BuildResult> builds = builder.build(batch);
  // Fresh inputs for each batch, shared by its candidates: a shared measuring process
  // computes their reference once.
  const uint64_t seed = rng_();
  std::vector<MeasureTask> tasks;
  for (size_t i = 0; i < batch.size(); ++i) tasks.push_back({builds[i], batch[i], seed});
  // A baseline is measured in full even when slow: it is the figure to beat.
  const double best_us = !baseline && report_.best ? report_.best->ranked_us() : 0;
  // The first candidate of a batch is always measured, so a round always leaves a record.
  runner_->measure(tasks, best_us, [&](size_t i, const MeasureResult& result) {
    Candidate& c = batch[i];
    c.trial = trial_++;
    TuningRecord record;
    record.workload = workload_;
    record.target = target_;
    record.config = c.config;
    record.strategy = c.strategy;
    record.trial = c.trial;
    record.parent_record = c.parent_record;
    if (c.strategy == strategy_->name()) record.predicted_us = strategy_->predicted_us(c.config);
    record.halide_version = halide_version();
    record.result = result;
    record.id = db_.add_record(record);
    stored_.insert(c.config);
    ++measured_in_round_;
    const bool ok = record.result.status == MeasureStatus::ok;
    // The database ranks a search's unconfirmed pick below the default and the baselines.
    if (ok) report_.best = best_usable_record(db_, workload_, target_, *space_);
    // The default point and the baselines are where a round starts from, not what its search found.
    if (ok && (baseline || c.strategy == "default") &&
        (!round_start_us_ || record.result.median_us < *round_start_us_)) {
      round_start_us_ = record.result.median_us;
    }
    if (baseline) {
      if (ok) report_.baselines[*autoscheduler_of(c.config)] = record;
    } else {
      strategy_->observe(c.config, record.result);
      ++report_.measured;
      report_.transferred += c.strategy == "transfer";
      if (!ok) ++report_.failed;
      if (ok && c.strategy == "default") report_.default_record = record;
      if (ok && (!search_best_us_ || record.result.median_us < *search_best_us_)) {
        search_best_us_ = record.result.median_us;
      }
      // The convergence of the search itself: a faster baseline would flatten it.
      const double seconds =
          report_.seconds + std::chrono::duration<double>(std::chrono::steady_clock::now() - round_started_).count();
      report_.convergence.push_back({report_.measured, seconds, search_best_us_.value_or(0),
                                     ok ? std::optional<double>(record.result.median_us) : std::nullopt});
    }
    if (after_each) after_each();
    return !stop();
  });
  // The points a stop left unmeasured, for other tuners to take.
  db_.release_claims();
  remove_build_folders(builds);
}

double WorkloadTuner::confirm_seconds_estimate(int count, int rounds) const {
  // The re-measuring takes the best `count` points and the default; a workload that has
  // measured nothing but its default point has nothing to re-measure.
  const int chosen = std::min(count, report_.measured - 1) + 1;
  if (count <= 0 || chosen < 2) return 0;
  // Per trial of the search: the baselines' compiles (Adams2019 took 75 s for one of
  // ResNeXt's convs) re-measure nothing and would inflate the reserve.
  return std::max(0.0, report_.seconds - baseline_seconds_) / report_.measured * chosen * rounds;
}

void WorkloadTuner::confirm(int count, int rounds, const std::function<bool()>& stop,
                            const std::function<bool()>& out_of_time) {
  if (count <= 0 || rounds <= 0) return;
  const auto started = std::chrono::steady_clock::now();
  std::set<int64_t> confirmed;  // records re-measured by this call
  const auto is_search_point = [&](const TuningRecord& r) {
    return !autoscheduler_of(r.config) && space_->check(r.config).empty();
  };
  for (int pass = 0; pass < kConfirmPasses; ++pass) {
    std::vector<TuningRecord> chosen;
    const auto add = [&](const TuningRecord& extra) {
      const bool included =
          std::any_of(chosen.begin(), chosen.end(), [&](const TuningRecord& r) { return r.id == extra.id; });
      if (!included) chosen.push_back(extra);
    };
    const std::optional<TuningRecord> best = best_usable_record(db_, workload_, target_, *space_);
    if (pass == 0) {
      // The search's fastest picks that were never re-measured, against the best record
      // and the default.
      std::vector<TuningRecord> picks;
      for (TuningRecord& r : db_.history(workload_, target_)) {
        if (r.result.status == MeasureStatus::ok && !r.confirmed_us && is_search_pick(r.strategy) &&
            is_search_point(r)) {
          picks.push_back(std::move(r));
        }
      }
      std::stable_sort(picks.begin(), picks.end(), [](const TuningRecord& x, const TuningRecord& y) {
        return x.result.median_us < y.result.median_us;
      });
      if (picks.size() > static_cast<size_t>(count)) picks.resize(static_cast<size_t>(count));
      chosen = std::move(picks);
      if (best && is_search_point(*best)) add(*best);
      if (report_.default_record) add(*report_.default_record);
    } else {
      // A record timed at another time (an earlier run's confirmation, a transferred
      // point) still ranks above what this call measured: measure it against this call's
      // best, in the same rounds.
      if (!best || !is_search_point(*best) || confirmed.count(best->id)) break;
      add(*best);
      std::optional<TuningRecord> best_confirmed;
      for (TuningRecord& r : db_.history(workload_, target_)) {
        if (r.result.status != MeasureStatus::ok || !confirmed.count(r.id)) continue;
        if (!best_confirmed || r.ranked_us() < best_confirmed->ranked_us()) best_confirmed = std::move(r);
      }
      if (best_confirmed) add(*best_confirmed);
    }
    if (chosen.size() < 2 || (pass > 0 && out_of_time())) break;
    const bool complete =
        pass == 0 ? confirm_pass(chosen, rounds, stop)
                  : confirm_pass(chosen, rounds, [&] { return stop() || out_of_time(); });
    if (!complete) break;
    for (const TuningRecord& r : chosen) confirmed.insert(r.id);
  }
  report_.confirmed = static_cast<int>(confirmed.size());
  report_.best = best_usable_record(db_, workload_, target_, *space_);
  report_.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
}

bool WorkloadTuner::confirm_pass(const std::vector<TuningRecord>& chosen, int rounds,
                                 const std::function<bool()>& stop) {
  std::vector<Candidate> batch;
  for (const TuningRecord& r : chosen) batch.push_back({workload_, target_, r.config, "confirm", r.trial, r.id});
  const std::vector<BuildResult> builds = builder_.build(batch);
  std::vector<std::vector<MeasureResult>> results(chosen.size());
  bool complete = true;
  for (int round = 0; round < rounds && complete; ++round) {
    // Rotated, so that no point always runs first or right after the same neighbour.
    std::vector<size_t> order;
    std::vector<MeasureTask> tasks;
    const uint64_t seed = rng_();
    for (size_t j = 0; j < chosen.size(); ++j) {
      const size_t i = (j + static_cast<size_t>(round)) % chosen.size();
      if (!builds[i].ok()) continue;
      order.push_back(i);
      tasks.push_back({builds[i], batch[i], seed});
    }
    size_t done = 0;
    runner_->measure(tasks, 0, [&](size_t task, const MeasureResult& result) {
      results[order[task]].push_back(result);
      ++done;
      return !stop();
    });
    complete = done == tasks.size() && !stop();
  }
  remove_build_folders(builds);
  if (!complete) return false;

  for (size_t i = 0; i < chosen.size(); ++i) {
    // A build that fails now built before; the record keeps its first figure.
    if (results[i].empty()) continue;
    const auto failed = std::find_if(results[i].begin(), results[i].end(),
                                     [](const MeasureResult& r) { return r.status != MeasureStatus::ok; });
    if (failed != results[i].end()) {
      db_.set_failed_on_recheck(chosen[i].id, *failed);
      if (report_.default_record && report_.default_record->id == chosen[i].id) report_.default_record.reset();
      continue;
    }
    std::vector<double> medians;
    for (const MeasureResult& r : results[i]) medians.push_back(r.median_us);
    const double confirmed = median(std::move(medians));
    db_.set_confirmed_us(chosen[i].id, confirmed);
    if (report_.default_record && report_.default_record->id == chosen[i].id) {
      report_.default_record->confirmed_us = confirmed;
    }
  }
  return true;
}

void WorkloadTuner::write_report() const {
  if (options_.report_dir.empty() || report_.convergence.empty()) return;
  fs::create_directories(options_.report_dir);
  const std::string stem = fmt::format("{}/{}-{}", options_.report_dir, workload_.hash(), options_.strategy);
  write_convergence_svg(stem + ".svg", workload_.key(), options_.strategy, report_.convergence);
  write_convergence_csv(stem + ".csv", report_.convergence);
}

}  // namespace nee
