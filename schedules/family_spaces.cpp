// The schedule spaces of every operator family: one row per family, in core/family.h's
// order, checked at compile time, so a family without spaces does not build.
#include <iterator>
#include <memory>

#include "core/family.h"
#include "core/isa_level.h"
#include "schedules/attention_cpu_space.h"
#include "schedules/attention_gpu_space.h"
#include "schedules/conv2d_cpu_space.h"
#include "schedules/cpu_caches.h"
#include "schedules/elementwise_cpu_space.h"
#include "schedules/elementwise_gpu_space.h"
#include "schedules/layernorm_cpu_space.h"
#include "schedules/layernorm_gpu_space.h"
#include "schedules/matmul_cpu_space.h"
#include "schedules/matmul_gpu_space.h"
#include "schedules/pool2d_cpu_space.h"
#include "schedules/pool2d_gpu_space.h"
#include "schedules/resize_cpu_space.h"
#include "schedules/resize_gpu_space.h"
#include "schedules/schedule_space.h"
#include "schedules/softmax_cpu_space.h"
#include "schedules/softmax_gpu_space.h"
#include "schedules/strided_copy_cpu_space.h"
#include "schedules/strided_copy_gpu_space.h"

namespace nee {

namespace {

struct FamilySpaces {
  FamilyId family;
  // The space on a CPU, its register blocks fitted to that CPU's vector unit (and the
  // conv tiles of its defaults to its caches).
  std::unique_ptr<ScheduleSpace> (*cpu)(const Workload&, const CpuVectorIsa&, const CpuCaches&);
  // The space on a GPU (CUDA or OpenCL).
  std::unique_ptr<ScheduleSpace> (*gpu)(const Workload&);
};

template <class Space>
std::unique_ptr<ScheduleSpace> fitted(const Workload& w, const CpuVectorIsa& isa, const CpuCaches&) {
  return std::make_unique<Space>(w, isa);
}

template <class Space>
std::unique_ptr<ScheduleSpace> plain(const Workload& w, const CpuVectorIsa&, const CpuCaches&) {
  return std::make_unique<Space>(w);
}

template <class Space>
std::unique_ptr<ScheduleSpace> gpu(const Workload& w) {
  return std::make_unique<Space>(w);
}

constexpr FamilySpaces kSpaces[] = {
    {FamilyId::matmul, fitted<MatmulCpuSpace>, gpu<MatmulGpuSpace>},
    {FamilyId::conv2d, make_conv2d_cpu_space, make_conv2d_gpu_space},
    {FamilyId::elementwise, fitted<ElementwiseCpuSpace>, gpu<ElementwiseGpuSpace>},
    {FamilyId::pool2d, plain<Pool2dCpuSpace>, gpu<Pool2dGpuSpace>},
    {FamilyId::softmax, fitted<SoftmaxCpuSpace>, gpu<SoftmaxGpuSpace>},
    {FamilyId::layernorm, fitted<LayernormCpuSpace>, gpu<LayernormGpuSpace>},
    {FamilyId::strided_copy, fitted<StridedCopyCpuSpace>, gpu<StridedCopyGpuSpace>},
    {FamilyId::attention, fitted<AttentionCpuSpace>, gpu<AttentionGpuSpace>},
    {FamilyId::resize, fitted<ResizeCpuSpace>, gpu<ResizeGpuSpace>},
};

constexpr bool rows_in_family_order() {
  for (size_t i = 0; i < std::size(kSpaces); ++i) {
    if (static_cast<size_t>(kSpaces[i].family) != i) return false;
  }
  return std::size(kSpaces) == kFamilyCount;
}
static_assert(rows_in_family_order(), "kSpaces needs one row per family of NEE_FAMILIES, in its order");

}  // namespace

std::unique_ptr<ScheduleSpace> make_schedule_space(const Workload& workload, const Target& target) {
  require_family_made(workload);  // the spaces define the family's algorithm over its shapes
  const FamilySpaces& row = kSpaces[static_cast<size_t>(family_of(workload).id)];
  if (target.kind() == TargetKind::cpu) {
    return row.cpu(workload, CpuVectorIsa::of_target(target.halide), CpuCaches::of_device(target.device));
  }
  return row.gpu(workload);
}

std::unique_ptr<ScheduleSpace> make_schedule_space(const Workload& workload, TargetKind kind) {
  Target target;
  target.halide = kind == TargetKind::cpu ? host_isa_level().halide : to_string(kind);
  // Only CPU spaces read the device (its caches); a GPU's would query its driver.
  if (kind == TargetKind::cpu) target.device = DeviceFingerprint::of_host();
  return make_schedule_space(workload, target);
}

}  // namespace nee
