// Col2Im (opset 18): image blocks given as columns summed back into the image.
#include <algorithm>
#include <vector>

#include "core/sliding_window.h"
#include "runtime/reference/reference_ops.h"
#include "runtime/reference/spatial_geometry.h"

namespace nee {

namespace {

// For column row k (a position within the block) and column l (the block's position),
// the flat image element they add to, or -1 where the block reaches into the padding.
std::vector<int64_t> image_element_of_columns(const std::vector<int64_t>& image, const std::vector<int64_t>& block,
                                              const WindowGeometry& window) {
  const size_t rank = image.size();
  std::vector<int64_t> positions(rank);
  int64_t block_size = 1, count = 1;
  for (size_t d = 0; d < rank; ++d) {
    positions[d] = sliding_output_size(image[d], block[d], window.strides[d], window.dilations[d],
                                       window.pads_begin[d], window.pads_end[d], false);
    block_size *= block[d];
    count *= positions[d];
  }
  std::vector<int64_t> target(static_cast<size_t>(block_size * count));
  for (int64_t k = 0; k < block_size; ++k) {
    for (int64_t l = 0; l < count; ++l) {
      int64_t element = 0, k_rest = k, l_rest = l, stride = 1;
      bool inside = true;
      for (size_t d = rank; d-- > 0;) {
        const int64_t at = l_rest % positions[d] * window.strides[d] - window.pads_begin[d] +
                           k_rest % block[d] * window.dilations[d];
        inside = inside && at >= 0 && at < image[d];
        element += at * stride;
        stride *= image[d];
        k_rest /= block[d];
        l_rest /= positions[d];
      }
      target[static_cast<size_t>(k * count + l)] = inside ? element : -1;
    }
  }
  return target;
}

template <typename T>
ReferenceFn col2im_kernel(int64_t images, int64_t image_size, std::vector<int64_t> target) {
  return [images, image_size, target = std::move(target)](const std::vector<const Tensor*>& in,
                                                          const std::vector<Tensor*>& out) {
    const T* columns = in[0]->data_as<T>();
    T* y = out[0]->data_as<T>();
    std::fill(y, y + images * image_size, T(0));
    const int64_t per_image = static_cast<int64_t>(target.size());
    for (int64_t i = 0; i < images; ++i) {
      const T* from = columns + i * per_image;
      T* to = y + i * image_size;
      for (int64_t j = 0; j < per_image; ++j) {
        if (target[static_cast<size_t>(j)] >= 0) to[target[static_cast<size_t>(j)]] += from[j];
      }
    }
  };
}

}  // namespace

// The importer stores image_shape and block_shape; the columns are f32 or f64
// [N, C x prod(block_shape), L].
ReferenceFn make_reference_col2im(const Graph& graph, const Node& node) {
  const std::vector<int64_t> image = node.attrs.get_ints("image_shape");
  const std::vector<int64_t> block = node.attrs.get_ints("block_shape");
  const WindowGeometry window = read_window_attributes(node.attrs, image.size(), block);
  const TensorType& y = graph.type_of(node.outputs[0]);
  const int64_t images = y.shape[0] * y.shape[1];
  int64_t image_size = 1;
  for (int64_t extent : image) image_size *= extent;
  std::vector<int64_t> target = image_element_of_columns(image, block, window);
  if (y.dtype == DType::f64) return col2im_kernel<double>(images, image_size, std::move(target));
  return col2im_kernel<float>(images, image_size, std::move(target));
}

}  // namespace nee
