#include "runtime/network_runtime.h"

#include "ops/conv2d_fp16.h"
#include "ops/conv2d_int8.h"
#include "ops/winograd.h"
#include "runtime/fillers.h"

#include <HalideRuntime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "runtime/caffemodel_reader.h"
#include "runtime/cuda_graph.h"
#include "runtime/cuda_register_cap.h"
#include "runtime/huge_pages.h"
#include "runtime/kernel_hooks.h"
#include "runtime/opencl_buffer_pool.h"
#include "runtime/opencl_build_options.h"

namespace cortado {

namespace {

thread_local std::string g_last_error;

// Halide's runtime reports errors through one global handler; keep its message for
// last_error() instead of letting it print to stderr.
extern "C" void capture_halide_error(void *, const char *message) {
    g_last_error = message ? message : "Halide runtime error";
    while (!g_last_error.empty() && g_last_error.back() == '\n') g_last_error.pop_back();
}

struct AlignedFree {
    void operator()(float *p) const { std::free(p); }
};

std::string shape_text(int rank, const int64_t *shape) {
    std::string text;
    for (int i = 0; i < rank; i++) text += (i ? "x" : "") + std::to_string(shape[i]);
    return text.empty() ? "scalar" : text;
}

// A channel-blocked tensor (TensorSpec::channel_block) copied into `nchw` in its shape's order;
// its images lie TensorSpec::batch_stride apart where it is a slice of a concatenation.
const float *unblocked(const TensorSpec &t, const float *blocked, std::vector<float> *nchw) {
    const int64_t b = t.channel_block, n = t.shape[0], c = t.shape[1], pixels = t.shape[2] * t.shape[3];
    const int64_t image = t.batch_stride ? t.batch_stride : c * pixels;
    nchw->resize(size_t(n * c * pixels));
    for (int64_t i = 0; i < n; i++)
        for (int64_t ch = 0; ch < c; ch++)
            for (int64_t p = 0; p < pixels; p++)
                (*nchw)[size_t((i * c + ch) * pixels + p)] = blocked[i * image + ((ch / b) * pixels + p) * b + ch % b];
    return nchw->data();
}

int64_t tensor_count(const TensorSpec &t) {
    int64_t n = 1;
    for (int i = 0; i < t.rank; i++) n *= t.shape[i];
    return n;
}

// A tensor whose images lie TensorSpec::batch_stride apart copied into `dense`.
const float *gathered(const TensorSpec &t, const float *strided, std::vector<float> *dense) {
    const int64_t image = tensor_count(t) / t.shape[0];
    dense->resize(size_t(tensor_count(t)));
    for (int64_t i = 0; i < t.shape[0]; i++)
        std::copy(strided + i * t.batch_stride, strided + i * t.batch_stride + image, dense->data() + i * image);
    return dense->data();
}

// The tensor as the blob callback shows it: dense, in its shape's order.
const float *callback_view(const TensorSpec &t, const float *stored, std::vector<float> *scratch) {
    if (t.channel_block) return unblocked(t, stored, scratch);
    if (t.batch_stride) return gathered(t, stored, scratch);
    return stored;
}

// The floats from a tensor's first element to past its last: with a batch stride, to the last
// image's end.
int64_t tensor_span(const TensorSpec &t) {
    return t.batch_stride ? (t.shape[0] - 1) * t.batch_stride + tensor_count(t) / t.shape[0] : tensor_count(t);
}

// Caffe accepts a legacy 4-D blob (1x1xNxK) where the layer wants (N, K): compare shapes with
// leading ones dropped.
bool same_shape(const std::vector<int64_t> &found, int rank, const int64_t *expected) {
    size_t f = 0;
    while (f + 1 < found.size() && found[f] == 1 && found.size() - f > size_t(rank)) f++;
    if (found.size() - f != size_t(rank)) return false;
    for (int e = 0; e < rank; e++, f++)
        if (found[f] != expected[e]) return false;
    return true;
}

// Where the weights come from: a caffemodel file, a caffemodel linked into the library, or (both
// null) the fillers with `seed`.
struct WeightSource {
    const char *path = nullptr;
    const uint8_t *bytes = nullptr;
    size_t size = 0;
    uint64_t seed = 0;
};

}  // namespace

struct Network {
    ~Network();
    const NetworkDescription *description = nullptr;
    std::unique_ptr<float, AlignedFree> arena;
    // GPU targets: the device arena, and 1-D crops of it for the input and output tensors.
    const halide_device_interface_t *device = nullptr;
    halide_buffer_t device_arena{};
    halide_dimension_t arena_dimension{};
    halide_buffer_t input_crop{}, output_crop{};
    halide_dimension_t input_dimension{}, output_dimension{};
    std::vector<bool> view_is_crop;
    std::vector<std::vector<float>> params;
    std::vector<halide_buffer_t> buffers;        // one per view
    std::vector<halide_dimension_t> dimensions;  // kMaxRank per view
    std::vector<void *> arguments;               // per step: its views' buffers, in order
    bool profiling = false;
    std::vector<double> step_ms;
    BlobCallback callback = nullptr;
    void *callback_user = nullptr;
    std::vector<float> unblocked;  // a blocked or batch-strided tensor made dense, for the blob callback
    // Where the weights came from (its path held in weights_path), for single_image
    // (network_forward_batch), made on first use.
    WeightSource weights;
    std::string weights_path;
    std::unique_ptr<Network> single_image;
    // The last successful forward's milliseconds, and network_forward_batch's last per image
    // through single_image (0: not measured yet); the whole batch's padded input and output.
    double forward_ms = 0.0, image_ms = 0.0;
    std::vector<float> padded_input, padded_output;
    // CUDA: the forward captured as one graph on its second plain call (the first loads the
    // kernels and uploads the weights), replayed from then on; how forwards run, and why not as a
    // graph where capture failed (runtime/cuda_graph.h).
    bool cuda = false;
    bool warmed_up = false;  // a forward has run (kernels loaded, weights on the device)
    CudaGraph *graph = nullptr;
    bool graph_refused = false;
    std::string launch_mode = "kernel by kernel";
};

Network::~Network() {
    // Device memory goes back on the legacy stream, which another thread's capture must not see.
    std::shared_lock<std::shared_mutex> freeing;  // only CUDA networks make the mutex
    if (cuda) freeing = std::shared_lock<std::shared_mutex>(cuda_capture_mutex());
    destroy_cuda_graph(graph);
    if (!device) return;
    for (size_t v = 0; v < buffers.size(); v++) {
        if (v < view_is_crop.size() && view_is_crop[v]) halide_device_release_crop(nullptr, &buffers[v]);
        else halide_device_free(nullptr, &buffers[v]);
    }
    if (input_crop.device) halide_device_release_crop(nullptr, &input_crop);
    if (output_crop.device) halide_device_release_crop(nullptr, &output_crop);
    if (device_arena.device) halide_device_free(nullptr, &device_arena);
    release_opencl_buffer_pool();
}

const char *last_error() { return g_last_error.c_str(); }
void set_last_error(const char *message) { g_last_error = message; }

namespace {

bool load_blobs(const NetworkDescription &d, const WeightSource &source, std::vector<std::vector<float>> *blobs) {
    blobs->assign(d.blob_count, {});
    const char *weights_path = source.path;
    const uint64_t seed = source.seed;
    if (!weights_path && !source.bytes) {
        for (int b = 0; b < d.blob_count; b++) {
            const BlobSpec &spec = d.blobs[b];
            if (spec.filler.type == FillerType::Unsupported) {
                g_last_error = std::string(d.name) + ": layer '" + spec.layer + "' blob " + std::to_string(spec.index) +
                               " uses a filler cortado does not implement; give a weights file";
                return false;
            }
            (*blobs)[b] = fill_blob(spec.filler, std::vector<int64_t>(spec.shape, spec.shape + spec.rank), seed,
                                    spec.layer, spec.index);
        }
        return true;
    }
    std::vector<LayerBlobs> layers;
    std::string error;
    const bool read = source.bytes ? parse_caffemodel(source.bytes, source.size, &layers, &error)
                                   : read_caffemodel(weights_path, &layers, &error);
    if (!read) {
        g_last_error = source.bytes ? std::string(d.name) + ": the embedded weights: " + error : error;
        return false;
    }
    std::map<std::string, const LayerBlobs *> by_name;
    for (const LayerBlobs &layer : layers) by_name[layer.name] = &layer;
    const std::string file = source.bytes ? std::string(d.name) + ": the embedded weights" : std::string(weights_path);
    for (int b = 0; b < d.blob_count; b++) {
        const BlobSpec &spec = d.blobs[b];
        if (spec.filler.type == FillerType::Folded) {
            (*blobs)[b] = fill_blob(spec.filler, std::vector<int64_t>(spec.shape, spec.shape + spec.rank), 0,
                                    spec.layer, spec.index);
            continue;
        }
        auto it = by_name.find(spec.layer);
        if (it == by_name.end()) {
            g_last_error = file + ": layer '" + spec.layer + "' has no weights in this file";
            return false;
        }
        const auto &found = it->second->blobs;
        if (spec.index >= int(found.size())) {
            g_last_error = file + ": layer '" + spec.layer + "' has " + std::to_string(found.size()) +
                           " blobs, expected at least " + std::to_string(spec.index + 1);
            return false;
        }
        const Blob &blob = found[spec.index];
        int64_t expected_count = 1;
        for (int i = 0; i < spec.rank; i++) expected_count *= spec.shape[i];
        const bool shape_ok = blob.shape.empty() ? int64_t(blob.data.size()) == expected_count
                                                 : same_shape(blob.shape, spec.rank, spec.shape);
        if (!shape_ok || int64_t(blob.data.size()) != expected_count) {
            g_last_error = file + ": layer '" + spec.layer + "' blob " + std::to_string(spec.index) +
                           ": expected shape " + shape_text(spec.rank, spec.shape) + ", found " +
                           (blob.shape.empty() ? std::to_string(blob.data.size()) + " values"
                                               : shape_text(int(blob.shape.size()), blob.shape.data()));
            return false;
        }
        (*blobs)[b] = blob.data;
    }
    return true;
}

// Caffe's BatchNorm of channel `c` as the affine scale x + shift, from its blobs (mean, var,
// factor) at `first`: scale = 1 / sqrt(var / f + eps), shift = -mean / f scale.
void batch_norm_affine(const std::vector<std::vector<float>> &blobs, int first, int64_t c, float eps, double *scale,
                       double *shift) {
    const float factor = blobs[first + 2][0];
    // Caffe: a zero moving-average factor means the statistics are used as stored at 0.
    const double s = factor == 0.0f ? 0.0 : 1.0 / factor;
    *scale = 1.0 / std::sqrt(blobs[first + 1][c] * s + double(eps));
    *shift = -blobs[first][c] * s * *scale;
}

void apply_fold(const FoldSpec &f, std::vector<std::vector<float>> &blobs) {
    std::vector<double> a(size_t(f.outputs)), c(size_t(f.outputs), 0.0);
    for (int64_t o = 0; o < f.outputs; o++) {
        if (f.batch_norm) {
            batch_norm_affine(blobs, f.first_blob, o, f.eps, &a[o], &c[o]);
        } else {
            a[o] = blobs[f.first_blob][o];
            if (f.shift) c[o] = blobs[f.first_blob + 1][o];
        }
    }
    std::vector<float> &w = blobs[f.weights_blob];
    for (int64_t o = 0; o < f.outputs; o++)
        for (int64_t i = 0; i < f.inner; i++) {
            float &v = f.transposed ? w[i * f.outputs + o] : w[o * f.inner + i];
            v = float(v * a[o]);
        }
    std::vector<float> &bias = blobs[f.bias_blob];
    for (int64_t o = 0; o < f.outputs; o++) bias[o] = float(bias[o] * a[o] + c[o]);
}

std::vector<float> pack(const ParamSpec &p, const std::vector<std::vector<float>> &blobs) {
    std::vector<float> out(static_cast<size_t>(p.count), 0.0f);
    switch (p.packing) {
    case Packing::Copy: out = blobs[p.first_blob]; break;
    case Packing::Zeros: break;
    case Packing::Ones: std::fill(out.begin(), out.end(), 1.0f); break;
    case Packing::Transpose: {
        const std::vector<float> &in = blobs[p.first_blob];
        for (int64_t r = 0; r < p.rows; r++)
            for (int64_t c = 0; c < p.cols; c++) out[c * p.rows + r] = in[r * p.cols + c];
        break;
    }
    case Packing::Fp16Panels: {
        // The kernel loads a panel's halves in 16-byte vectors (generators/conv2d_fp16_generator.cc
        // set_host_alignment): std::vector's operator new aligns to at least this.
        static_assert(__STDCPP_DEFAULT_NEW_ALIGNMENT__ >= 16, "fp16 weights need 16-byte aligned buffers");
        ParamSpec panels = p;
        panels.packing = Packing::Panels;
        panels.count = (p.rows + p.panel_width - 1) / p.panel_width * p.panel_width * p.cols;
        const std::vector<float> wide = pack(panels, blobs);
        uint16_t *halves = reinterpret_cast<uint16_t *>(out.data());
        for (size_t i = 0; i < wide.size(); i++) halves[i] = ops::half_bits(wide[i]);
        break;
    }
    case Packing::Panels:
    case Packing::PanelsOfTranspose: {
        const std::vector<float> &in = blobs[p.first_blob];
        const bool transposed = p.packing == Packing::PanelsOfTranspose;
        const int64_t outputs = transposed ? p.cols : p.rows, depth = transposed ? p.rows : p.cols;
        const int64_t w = p.panel_width;
        for (int64_t o = 0; o < outputs; o++)
            for (int64_t k = 0; k < depth; k++)
                out[(o / w * depth + k) * w + o % w] = in[transposed ? k * outputs + o : o * depth + k];
        break;
    }
    case Packing::WinogradF2Panels:
    case Packing::WinogradF4Panels:
    case Packing::WinogradF2K5Panels: {
        const std::vector<float> &in = blobs[p.first_blob];
        const ops::WinogradMatrices t = p.packing == Packing::WinogradF4Panels     ? ops::winograd_matrices(4, 3)
                                        : p.packing == Packing::WinogradF2K5Panels ? ops::winograd_matrices(2, 5)
                                                                                   : ops::winograd_matrices(2, 3);
        const int64_t outputs = p.rows, inputs = p.cols, w = p.panel_width, panels = (outputs + w - 1) / w;
        const int alpha = t.alpha, r = t.r;
        std::vector<double> gg(size_t(alpha) * r);  // G g, α × r
        for (int64_t o = 0; o < outputs; o++)
            for (int64_t i = 0; i < inputs; i++) {
                const float *g = &in[(o * inputs + i) * r * r];
                std::fill(gg.begin(), gg.end(), 0.0);
                for (int a = 0; a < alpha; a++)
                    for (int c = 0; c < r; c++)
                        for (int k = 0; k < r; k++) gg[a * r + c] += t.g[a * r + k] * g[k * r + c];
                for (int a = 0; a < alpha; a++)
                    for (int c = 0; c < alpha; c++) {
                        double u = 0;  // (G g Gᵀ)(a, c)
                        for (int k = 0; k < r; k++) u += gg[a * r + k] * t.g[c * r + k];
                        out[(((a * alpha + c) * panels + o / w) * inputs + i) * w + o % w] = float(u);
                    }
            }
        break;
    }
    case Packing::Int8Panels:
    case Packing::Int8ChannelTerms: {
        // Blob: rows outputs x cols channels x the kernel's area, Caffe's order.
        const std::vector<float> &in = blobs[p.first_blob];
        const int64_t outputs = p.rows, channels = p.cols, area = int64_t(in.size()) / (outputs * channels);
        const int words = int((channels + ops::kInt8ChannelsPerWord - 1) / ops::kInt8ChannelsPerWord);
        int8_t *bytes = reinterpret_cast<int8_t *>(out.data());
        for (int64_t o = 0; o < outputs; o++) {
            const float *w = &in[size_t(o * channels * area)];
            float max_abs = 0;
            for (int64_t k = 0; k < channels * area; k++) max_abs = std::max(max_abs, std::abs(w[k]));
            const float scale =
                p.channel_scales ? p.channel_scales[o] : ops::int8_weight_scale(max_abs, p.weight_levels);
            int64_t sum = 0;
            for (int64_t c = 0; c < channels; c++)
                for (int64_t t = 0; t < area; t++) {
                    const int q = ops::quantize_weight(w[c * area + t], scale, p.weight_levels);
                    sum += q;
                    if (p.packing == Packing::Int8Panels)
                        bytes[ops::int8_packed_index(words * int(area), p.panel_width, int(area), int(o), int(c),
                                                     int(t))] = int8_t(q);
                }
            if (p.packing == Packing::Int8ChannelTerms) out[size_t(o)] = scale, out[size_t(outputs + o)] = float(sum);
        }
        break;
    }
    case Packing::BatchNormScale:
    case Packing::BatchNormShift:
        for (int64_t c = 0; c < p.count; c++) {
            double scale, shift;
            batch_norm_affine(blobs, p.first_blob, c, p.eps, &scale, &shift);
            out[c] = float(p.packing == Packing::BatchNormScale ? scale : shift);
        }
        break;
    }
    return out;
}

// Gives `buffer` a device alias of `count` floats at `offset` in the device arena. Halide can
// only crop between buffers of equal rank, so the crop is taken as 1-D and the buffer's own
// shape restored afterwards; the device handle does not depend on it.
bool crop_device_arena(Network &network, int64_t offset, int64_t count, halide_buffer_t *buffer) {
    halide_dimension_t *const own_dims = buffer->dim;
    const int own_rank = buffer->dimensions;
    halide_dimension_t flat(int32_t(offset), int32_t(count), 1);
    buffer->dim = &flat;
    buffer->dimensions = 1;
    const int result = halide_device_crop(nullptr, &network.device_arena, buffer);
    buffer->dim = own_dims;
    buffer->dimensions = own_rank;
    if (result != 0) {
        g_last_error = std::string(network.description->name) +
                       ": cannot place a tensor in device memory (Halide error " + std::to_string(result) +
                       "): " + g_last_error;
        return false;
    }
    return true;
}

bool attach_device(Network &network) {
    const NetworkDescription &d = *network.description;
    raise_cuda_register_cap(d.cuda_registers_per_thread);
    set_opencl_build_options(d.opencl_build_options);
    network.device = d.device_interface();
    network.cuda = is_cuda_device(network.device);
    if (network.cuda) use_cortado_cuda_streams();
    network.arena_dimension = halide_dimension_t(0, int32_t(std::max<int64_t>(d.arena_floats, 1)), 1);
    network.device_arena.host = reinterpret_cast<uint8_t *>(network.arena.get());
    network.device_arena.type = halide_type_t(halide_type_float, 32, 1);
    network.device_arena.dimensions = 1;
    network.device_arena.dim = &network.arena_dimension;
    int result = halide_device_malloc(nullptr, &network.device_arena, network.device);
    if (result != 0) {
        g_last_error = std::string(d.name) + ": cannot allocate " + std::to_string(d.arena_floats * 4) +
                       " bytes of device memory (Halide error " + std::to_string(result) + "): " + g_last_error;
        return false;
    }
    network.view_is_crop.assign(d.view_count, false);
    for (int v = 0; v < d.view_count; v++) {
        const ViewSpec &view = d.views[v];
        if (view.tensor < 0) {
            network.buffers[v].flags = 0;
            network.buffers[v].set_host_dirty(true);  // weights go up on first use, then stay
            continue;
        }
        const TensorSpec &t = d.tensors[view.tensor];
        if (!crop_device_arena(network, t.offset, tensor_span(t), &network.buffers[v])) return false;
        network.view_is_crop[v] = true;
    }
    auto whole_tensor = [&](int tensor, halide_buffer_t *buffer, halide_dimension_t *dim) {
        const TensorSpec &t = d.tensors[tensor];
        *dim = halide_dimension_t(0, int32_t(tensor_count(t)), 1);
        buffer->host = reinterpret_cast<uint8_t *>(network.arena.get() + t.offset);
        buffer->type = halide_type_t(halide_type_float, 32, 1);
        buffer->dimensions = 1;
        buffer->dim = dim;
        return crop_device_arena(network, t.offset, tensor_count(t), buffer);
    };
    return whole_tensor(d.input_tensor, &network.input_crop, &network.input_dimension) &&
           whole_tensor(d.output_tensor, &network.output_crop, &network.output_dimension);
}

// Device memory -> host arena for one buffer (a crop of the device arena).
int download(halide_buffer_t *buffer) {
    buffer->set_device_dirty(true);
    return halide_copy_to_host(nullptr, buffer);
}

// The network's input and output move between the caller's memory and their device crops
// directly: staging them through the host arena would add a host copy as long as the transfer.
// `copy` runs with the crop's host pointer on the caller's array, then the arena's is restored.
template <typename Copy>
int copy_with_callers_memory(halide_buffer_t *crop, const float *caller, Copy copy) {
    uint8_t *const arena_host = crop->host;
    crop->host = reinterpret_cast<uint8_t *>(const_cast<float *>(caller));
    const int result = copy(crop);
    crop->host = arena_host;
    crop->flags = 0;
    return result;
}

Network *create(const NetworkDescription *description, const WeightSource &source) {
    static std::once_flag install_hooks;
    std::call_once(install_hooks, [] {
        halide_set_error_handler(capture_halide_error);
        install_kernel_hooks(halide_set_custom_malloc, halide_set_custom_free, halide_set_custom_do_par_for);
    });
    const NetworkDescription &d = *description;
    auto network = std::make_unique<Network>();
    network->description = description;
    network->weights = source;
    if (source.path) {
        network->weights_path = source.path;
        network->weights.path = network->weights_path.c_str();
    }

    std::vector<std::vector<float>> blobs;
    if (!load_blobs(d, source, &blobs)) return nullptr;
    for (int f = 0; f < d.fold_count; f++) apply_fold(d.folds[f], blobs);
    for (int p = 0; p < d.param_count; p++) network->params.push_back(pack(d.params[p], blobs));

    const size_t arena_bytes = ((size_t(d.arena_floats) * sizeof(float) + 63) / 64) * 64;
    network->arena.reset(static_cast<float *>(allocate_large(64, arena_bytes ? arena_bytes : 64)));
    if (!network->arena) {
        g_last_error =
            std::string(d.name) + ": cannot allocate " + std::to_string(arena_bytes) + " bytes of activations";
        return nullptr;
    }

    // Poison: an element a kernel forgot to write reads as NaN, which no comparison passes.
    std::fill(network->arena.get(), network->arena.get() + d.arena_floats, std::numeric_limits<float>::quiet_NaN());

    network->buffers.resize(d.view_count);
    network->dimensions.resize(size_t(d.view_count) * kMaxRank);
    for (int v = 0; v < d.view_count; v++) {
        const ViewSpec &view = d.views[v];
        halide_buffer_t &buf = network->buffers[v];
        buf = halide_buffer_t{};
        float *host = view.tensor >= 0 ? network->arena.get() + d.tensors[view.tensor].offset
                                       : network->params[-1 - view.tensor].data();
        buf.host = reinterpret_cast<uint8_t *>(host);
        const Packing packing = view.tensor < 0 ? d.params[-1 - view.tensor].packing : Packing::Copy;
        buf.type = packing == Packing::Int8Panels   ? halide_type_t(halide_type_int, 8, 1)
                   : packing == Packing::Fp16Panels ? halide_type_t(halide_type_float, 16, 1)
                                                    : halide_type_t(halide_type_float, 32, 1);
        buf.dimensions = view.rank;
        buf.dim = &network->dimensions[size_t(v) * kMaxRank];
        int64_t stride = 1;
        for (int i = 0; i < view.rank; i++) {
            if (i == view.batch_dim && view.batch_stride) stride = view.batch_stride;
            buf.dim[i] = halide_dimension_t(0, view.extents[i], int32_t(stride));
            stride *= view.extents[i];
        }
    }
    for (int s = 0; s < d.step_count; s++)
        for (int v = 0; v < d.steps[s].view_count; v++)
            network->arguments.push_back(&network->buffers[d.steps[s].first_view + v]);
    network->step_ms.assign(d.step_count, 0.0);
    if (d.device_interface && !attach_device(*network)) return nullptr;
    return network.release();
}

}  // namespace

Network *network_create(const NetworkDescription *description, const char *weights_path, uint64_t filler_seed) {
    WeightSource source;
    source.path = weights_path;
    source.seed = filler_seed;
    return create(description, source);
}

Network *network_create_embedded(const NetworkDescription *description, const uint8_t *bytes, size_t size) {
    WeightSource source;
    source.bytes = bytes;
    source.size = size;
    return create(description, source);
}

void network_destroy(Network *network) { delete network; }

namespace {

// The network runs kernel by kernel from now on, for `why`; its graph, if any, is dropped.
void refuse_graph(Network &network, const std::string &why) {
    destroy_cuda_graph(network.graph);
    network.graph = nullptr;
    network.graph_refused = true;
    network.launch_mode = "kernel by kernel (no CUDA graph: " + why + ")";
}

// The network's steps in order, with the blob callback after each (and profiling).
int run_steps(Network *network) {
    const NetworkDescription &d = *network->description;
    float *arena = network->arena.get();
    size_t first_argument = 0;
    for (int s = 0; s < d.step_count; s++) {
        const StepSpec &step = d.steps[s];
        if (step.entry) {
            // Every tensor lives on the device and is current there: tell Halide so, or it
            // would copy stale host data up.
            if (network->device)
                for (int v = 0; v < step.view_count; v++)
                    if (network->view_is_crop[step.first_view + v]) network->buffers[step.first_view + v].flags = 0;
            const auto start = std::chrono::steady_clock::now();
            int result = step.entry(&network->arguments[first_argument]);
            halide_buffer_t *out = &network->buffers[step.first_view + step.view_count - 1];
            if (result == 0 && network->device && network->profiling) result = halide_device_sync(nullptr, out);
            if (network->device) out->flags = 0;
            if (network->profiling)
                network->step_ms[s] =
                    std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
            if (result != 0) {
                g_last_error = std::string(d.name) + ": layer '" + step.layer + "' failed (Halide error " +
                               std::to_string(result) + "): " + g_last_error;
                return result;
            }
        }
        first_argument += size_t(step.view_count);
        if (network->callback) {
            const TensorSpec &t = d.tensors[step.output_tensor];
            if (network->device && step.entry) {
                halide_buffer_t *out = &network->buffers[step.first_view + step.view_count - 1];
                if (int result = download(out)) return result;
                out->flags = 0;
            }
            network->callback(network->callback_user, t.blob_name, t.rank, t.shape,
                              callback_view(t, arena + t.offset, &network->unblocked));
        }
    }
    return 0;
}

int forward_steps(Network *network, const float *input, float *output) {
    if (!network || !input || !output) {
        g_last_error = "forward: null context, input or output";
        return -1;
    }
    const NetworkDescription &d = *network->description;
    auto count = [&](int tensor) { return size_t(tensor_count(d.tensors[tensor])); };
    const bool plain = network->callback || network->profiling;  // these need each step's end
    if (network->cuda && !plain && !network->graph && !network->graph_refused && network->warmed_up) {
        // Not while another thread's forward runs: then capture waits for a later forward.
        std::unique_lock<std::shared_mutex> capturing(cuda_capture_mutex(), std::try_to_lock);
        if (capturing.owns_lock()) {
            std::string why;
            network->graph = capture_cuda_graph([network] { return run_steps(network); }, &why);
            if (network->graph) network->launch_mode = "one CUDA graph";
            else refuse_graph(*network, why);
        }
    }
    std::shared_lock<std::shared_mutex> forwarding;
    if (network->cuda) forwarding = std::shared_lock<std::shared_mutex>(cuda_capture_mutex());
    float *arena = network->arena.get();
    // CPU kernels read the input from the arena; on a GPU the blob callback reads it there too,
    // for the input itself and for the layers that only alias it (Dropout, Reshape, ...).
    if (!network->device || network->callback)
        std::memcpy(arena + d.tensors[d.input_tensor].offset, input, count(d.input_tensor) * sizeof(float));
    if (network->device) {
        const auto upload = [&](halide_buffer_t *crop) {  // reads the caller's input only
            crop->set_host_dirty(true);
            return halide_copy_to_device(nullptr, crop, network->device);
        };
        if (int result = copy_with_callers_memory(&network->input_crop, input, upload)) {
            g_last_error = std::string(d.name) + ": copying the input to the device failed: " + g_last_error;
            return result;
        }
    }
    if (network->callback) {
        const TensorSpec &t = d.tensors[d.input_tensor];
        network->callback(network->callback_user, t.blob_name, t.rank, t.shape, arena + t.offset);
    }
    bool replayed = false;
    if (network->graph && !plain) {
        std::string why;
        replayed = launch_cuda_graph(network->graph, &why) == 0;
        // Kernel by kernel from now on (a launch that fails once, for memory say, would again).
        if (!replayed) refuse_graph(*network, why);
    }
    if (!replayed) {
        if (int result = run_steps(network)) return result;
    }
    if (network->device) {
        if (int result = copy_with_callers_memory(&network->output_crop, output, download)) {
            g_last_error = std::string(d.name) + ": copying the output from the device failed: " + g_last_error;
            return result;
        }
    } else {
        std::memcpy(output, arena + d.tensors[d.output_tensor].offset, count(d.output_tensor) * sizeof(float));
    }
    network->warmed_up = true;
    return 0;
}

}  // namespace

int network_forward(Network *network, const float *input, float *output) {
    const auto start = std::chrono::steady_clock::now();
    const int result = forward_steps(network, input, output);
    if (result == 0)
        network->forward_ms =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return result;
}

int network_forward_batch(Network *network, int images, const float *input, float *output) {
    if (!network || !input || !output) {
        g_last_error = "forward_batch: null context, input or output";
        return -1;
    }
    const NetworkDescription &d = *network->description;
    const TensorSpec &in = d.tensors[d.input_tensor];
    const int64_t batch = in.shape[0];
    if (images < 1 || images > batch) {
        g_last_error = std::string(d.name) + ": forward_batch of " + std::to_string(images) +
                       " images; this network runs 1 to " + std::to_string(batch) + " (its compiled batch)";
        return -1;
    }
    const int64_t in_count = tensor_count(in) / batch;
    const int64_t out_count = tensor_count(d.tensors[d.output_tensor]) / batch;
    // The whole batch, padded with zeros past `images`, where one image at a time would take
    // longer, as the last forward of each measured; until both are known, one at a time.
    const bool whole =
        images == batch || !d.single_image ||
        (network->image_ms > 0.0 && network->forward_ms > 0.0 && images * network->image_ms > network->forward_ms);
    if (whole) {
        const float *batch_input = input;
        float *batch_output = output;
        if (images < batch) {
            network->padded_input.resize(size_t(tensor_count(in)));
            const auto tail = std::copy(input, input + images * in_count, network->padded_input.begin());
            std::fill(tail, network->padded_input.end(), 0.0f);
            network->padded_output.resize(size_t(batch * out_count));
            batch_input = network->padded_input.data();
            batch_output = network->padded_output.data();
        }
        if (int result = network_forward(network, batch_input, batch_output)) return result;
        if (batch_output != output) std::copy(batch_output, batch_output + images * out_count, output);
        return 0;
    }
    if (!network->single_image) {
        network->single_image.reset(create(d.single_image, network->weights));
        if (!network->single_image) return -1;
    }
    double total_ms = 0.0;
    for (int i = 0; i < images; i++) {
        if (int result = network_forward(network->single_image.get(), input + i * in_count, output + i * out_count))
            return result;
        total_ms += network->single_image->forward_ms;
    }
    network->image_ms = total_ms / images;
    return 0;
}

const char *network_launch_mode(const Network *network) {
    return network ? network->launch_mode.c_str() : "no network";
}

void network_set_profiling(Network *network, int enabled) {
    if (network) network->profiling = enabled != 0;
}

void network_set_blob_callback(Network *network, BlobCallback callback, void *user) {
    if (!network) return;
    network->callback = callback;
    network->callback_user = user;
}

double network_step_time_ms(const Network *network, int step) {
    if (!network || step < 0 || step >= int(network->step_ms.size())) return 0.0;
    return network->step_ms[step];
}

int tensor_shape(const NetworkDescription *description, int tensor, int64_t *dims) {
    const TensorSpec &t = description->tensors[tensor];
    for (int i = 0; i < t.rank; i++) dims[i] = t.shape[i];
    return t.rank;
}

}  // namespace cortado
