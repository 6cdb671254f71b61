#include "schedules/attention_cpu_space.h"

#include <algorithm>

#include "schedules/row_loops.h"
#include "schedules/static_output.h"

namespace nee {

using namespace Halide;

// The loop nest, outermost first: K^T packed with the keys innermost (once, or per
// task); tasks of `rows` queries of one group (parallel); per task the scores in
// register blocks of `mr` rows by `vec * nr_vecs` keys (Q's value broadcast, K^T's
// vectors streamed over D), the softmax's statistics over each row (split into vector
// lanes) and its exps, stored once; then the output in register blocks of `pv_rows` rows
// by all Dv columns, summing exps x V over the keys. The scores never leave the task's
// buffers, which for 16 rows of 197 keys take 12.6 KB.
AttentionCpuSpace::AttentionCpuSpace(const Workload& workload, CpuVectorIsa isa)
    : workload_(workload), isa_(isa), dims_(attention_dims(workload)) {
  knobs_ = {
      {"vec", values_up_to({4, 8, 16}, std::max(dims_.keys, dims_.value_depth)), "vector width in floats"},
      {"rows", values_up_to({4, 8, 16, 32, 64}, dims_.queries), "queries per task of the parallel loop"},
      {"mr", values_up_to({1, 2, 3, 4, 6, 8}, dims_.queries), "query rows of a register block of the scores"},
      {"nr_vecs", {1, 2, 3, 4}, "key vectors of a register block of the scores"},
      {"pv_rows", values_up_to({1, 2, 3, 4, 6, 8}, dims_.queries), "query rows of a register block of the output"},
      {"keys_per_task", {0, 1}, "0: K^T packed once, before the tasks, in parallel over groups; 1: by each task"},
  };
}

int64_t AttentionCpuSpace::output_block_registers(int64_t rows, int64_t vec) const {
  return rows * ceil_div(dims_.value_depth, vec) * isa_.registers_per_vector(vec);
}

ScheduleConfig AttentionCpuSpace::default_config() const {
  ScheduleConfig c;
  // A native vector: where it does not divide Dv, V is copied once into columns padded
  // with zeros to whole vectors (apply), so the output's accumulators are never masked.
  c.knobs["vec"] = largest_value_up_to(knobs_, "vec", isa_.lanes);
  // Tasks of 16 rows, as the softmax family's (its measured best on the shapes tried);
  // a group of up to 64 queries is one task where there are groups enough for the cores
  // (GPT's causal [4, 64, 64, 64]: 46.0 us in 16-row tasks with K^T packed once, 26.9 as
  // one task per group with K^T packed by it).
  const bool task_per_group = dims_.queries <= 64 && dims_.groups >= 4;
  c.knobs["rows"] = largest_value_up_to(knobs_, "rows", task_per_group ? dims_.queries : 16);
  c.knobs["mr"] = largest_value_up_to(knobs_, "mr", std::min<int64_t>(c.knobs["rows"], isa_.wide() ? 4 : 2));
  // Three vectors of keys a block where there are more than 64 keys: 12 accumulators hide
  // the FMAs' latency better than 8 (`nee-tune --op attention --trials 40`, best points:
  // ViT's [6,197,197,64] 344 us against 364 at two, CLIP's causal [8,77,77,64] 74 against
  // 100, MobileViT's [16,256,256,24] 870 against 994); at 64 keys or fewer two vectors
  // round up least (GPT's [4,64,64,64] and SegFormer's [1,4096,64,32] were best at two).
  c.knobs["nr_vecs"] = dims_.keys > 64 ? 3 : 2;
  // The most rows of a task whose accumulators fill at most 3/4 of the registers.
  int64_t pv_rows = 1;
  const auto pv_knob = std::find_if(knobs_.begin(), knobs_.end(), [](const Knob& k) { return k.name == "pv_rows"; });
  for (int64_t r : pv_knob->values) {
    if (r <= c.knobs["rows"] && 4 * output_block_registers(r, c.knobs["vec"]) <= 3 * isa_.registers) pv_rows = r;
  }
  c.knobs["pv_rows"] = pv_rows;
  // Packed per task, K^T took ViT's [6, 197, 197, 64] kernel to 1.2 ms, most of it
  // gathering K's columns 13 times per group (`nee-tune --op attention --trials 30`);
  // packed by each of a group's 5 tasks, CLIP's causal [8, 77, 77, 64] took 106.7 us
  // against 121.6 packed once (the packing's own parallel loop and its trip through memory).
  c.knobs["keys_per_task"] = ceil_div(dims_.queries, c.knobs["rows"]) <= 5 ? 1 : 0;
  return c;
}

std::string AttentionCpuSpace::check_constraints(const ScheduleConfig& c) const {
  if (c.at("mr") > c.at("rows") || c.at("pv_rows") > c.at("rows")) return "a register block exceeds the task's rows";
  if (c.at("mr") * c.at("nr_vecs") * isa_.registers_per_vector(c.at("vec")) > isa_.registers - 2) {
    return "the scores' register block would spill";
  }
  // A block of one row is valid even where it spills: on SSE4.1 and AVX2 (16 registers)
  // a row of Dv = 64 takes all of them, and there is no smaller block.
  if (c.at("pv_rows") > 1 && output_block_registers(c.at("pv_rows"), c.at("vec")) > isa_.registers - 2) {
    return "the output's register block would spill";
  }
  return "";
}

ScheduledKernel AttentionCpuSpace::apply(const ScheduleConfig& c) const {
  AttentionPipeline p = define_attention(workload_);
  constrain_dense_output(p.out, workload_.output.shape);
  const int vec = static_cast<int>(c.at("vec"));
  // The queries' splits shift their last task and block inwards, which needs them no
  // longer than S (the knobs' smallest values are 4 and 1, so S < 4 cuts rows to S).
  const int rows = static_cast<int>(std::min<int64_t>(c.at("rows"), dims_.queries));
  const int mr = static_cast<int>(c.at("mr"));
  const int nr = vec * static_cast<int>(c.at("nr_vecs"));
  const int pv_rows = std::min(static_cast<int>(c.at("pv_rows")), rows);

  // Every read of an input is clamped (define_attention), so the Funcs inside a task may
  // round their regions up. The output's row splits shift a ragged last task or block
  // inwards (rows and pv_rows never exceed S): its rows are computed twice, with the same
  // values, but every block has constant extents, which unrolling needs.
  Var so("so"), si("si"), sb("sb"), sr("sr"), dvo("dvo"), dvi("dvi"), task("task");
  p.out.split(p.s, so, si, rows, TailStrategy::ShiftInwards)
      .split(si, sb, sr, pv_rows, TailStrategy::ShiftInwards)
      .split(p.dv, dvo, dvi, vec, TailStrategy::GuardWithIf)
      .reorder(dvi, dvo, sr, sb, so, p.g)
      .fuse(so, p.g, task)
      .parallel(task)
      .vectorize(dvi)
      .unroll(dvo)
      .unroll(sr);
  const LoopLevel per_task(p.out, task);

  // K^T over every key the score blocks read, zeros past T: Halide bounds it by the keys
  // the softmax needs, not the blocks rounded up to nr, so the blocks' last columns read
  // K^T where it was never written, and with fewer keys than a vector (MobileViT's
  // [8, 1, 24]) the vector shifted inwards read K at t = -15.
  p.keys.bound(p.t, 0, static_cast<int>(ceil_div(dims_.keys, nr) * nr));
  if (c.at("keys_per_task")) {
    p.keys.compute_at(per_task).vectorize(p.t, vec);
  } else {
    p.keys.compute_root().parallel(p.g).vectorize(p.t, vec);
  }

  Var to("to"), ti("ti"), tio("tio"), tii("tii"), lb("lb"), lr("lr");
  p.logits.compute_at(per_task)
      .split(p.t, to, ti, nr, TailStrategy::RoundUp)
      .split(ti, tio, tii, vec)
      .split(p.s, lb, lr, mr, TailStrategy::RoundUp)
      .reorder(tii, tio, lr, to, lb)
      .vectorize(tii)
      .unroll(tio)
      .unroll(lr);
  p.dot.compute_at(p.logits, to).vectorize(p.t, vec).unroll(p.s);
  {
    Var dto("dto"), dti("dti");
    p.dot.update().split(p.t, dto, dti, vec).reorder(dti, dto, p.s, p.rd.x).vectorize(dti).unroll(dto).unroll(p.s);
  }

  compute_row_statistic(p.row_max, per_task, p.rt.x, p.t, false, vec, vec, false);
  compute_row_statistic(p.row_sum, per_task, p.rt.x, p.t, false, vec, vec, false);
  // Rounded up, not shifted inwards (fewer keys than a vector would shift it before t = 0):
  // the logits past T are computed.
  p.exps.compute_at(per_task).vectorize(p.t, vec, TailStrategy::RoundUp);

  // Dv not a multiple of the vector: the output's accumulators span whole vectors, over V
  // copied into zero-padded columns first (once, in parallel over groups). Guarded instead,
  // the ragged last vector was masked, and masked loads and stores kept the accumulators in
  // memory (MobileViT-XS's [16, 256, 256, 24]: 4.93 ms at 16 lanes, 1.14 at 8; `nee-tune
  // --op attention --trials 40`). In MobileViT-XS (`nee-run --profile`), 8 lanes guarded
  // against 16 padded: [16, 256, 256, 24] 1065 -> 887 us, [16, 64, 64, 30] 307 -> 73 us.
  if (dims_.value_depth % vec != 0) p.values.compute_root().parallel(p.g).vectorize(p.dv, vec);
  p.weighted.compute_at(p.out, sb).vectorize(p.dv, vec, TailStrategy::RoundUp).unroll(p.s);
  // Halide sizes the block from the shifted last block's bounds, an expression it does
  // not reduce to pv_rows, so it was a heap allocation per block (halide_malloc and free
  // 6% of ViT's [6,197,197,64] in Halide's profiler).
  p.weighted.bound_storage(p.s, pv_rows);
  {
    Var wo("wo"), wi("wi");
    p.weighted.update()
        .split(p.dv, wo, wi, vec, TailStrategy::RoundUp)
        .reorder(wi, wo, p.s, p.rt.x)
        .vectorize(wi)
        .unroll(wo)
        .unroll(p.s);
  }
  return ScheduledKernel{Pipeline(p.out), p.arguments()};
}

}  // namespace nee
