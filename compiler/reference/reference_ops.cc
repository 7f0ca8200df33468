#include "compiler/reference/reference_ops.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "ops/conv2d_fp16.h"
#include "ops/conv2d_int8.h"

namespace cortado::reference {
namespace {

void require(bool condition, const std::string &message) {
    if (!condition) throw std::runtime_error(message);
}

// Product of shape[begin, end); 1 for an empty range, as Caffe's count() does.
int64_t count(const Shape &shape, size_t begin, size_t end) {
    int64_t n = 1;
    for (size_t i = begin; i < end; ++i) n *= shape[i];
    return n;
}

int64_t count(const Shape &shape) { return count(shape, 0, shape.size()); }

// cortado's MAX (pooling, Eltwise): a NaN operand wins wherever it stands, where Caffe's
// std::max keeps or drops it depending on the order it meets it in.
double max_keeping_nan(double a, double b) { return std::isnan(a) || a > b ? a : b; }

// Caffe's Blob::CanonicalAxisIndex: negative axes count from the end.
size_t canonical_axis(int axis, size_t rank) {
    const int64_t r = static_cast<int64_t>(rank);
    require(axis >= -r && axis < r, "axis " + std::to_string(axis) + " out of range for rank " + std::to_string(rank));
    return static_cast<size_t>(axis < 0 ? axis + r : axis);
}

Tensor zeros(Shape shape) {
    Tensor t;
    t.data.assign(static_cast<size_t>(count(shape)), 0.0);
    t.shape = std::move(shape);
    return t;
}

void require_consistent(const Tensor &t, const char *what) {
    require(static_cast<int64_t>(t.data.size()) == count(t.shape),
            std::string(what) + " holds " + std::to_string(t.data.size()) + " values but its shape says " +
                std::to_string(count(t.shape)));
}

void require_size(const Tensor &t, int64_t expected, const char *what) {
    require(
        static_cast<int64_t>(t.data.size()) == expected,
        std::string(what) + " has " + std::to_string(t.data.size()) + " values, expected " + std::to_string(expected));
}

void require_rank4(const Tensor &in, const char *op) {
    require_consistent(in, "input");
    require(in.shape.size() == 4, std::string(op) + " needs a 4-D NCHW input");
}

}  // namespace

double relu_value(double x, double negative_slope) {
    if (x > 0 || std::isnan(x)) return x;
    return negative_slope == 0 ? 0.0 : negative_slope * x;
}

namespace {

// An int8 convolution's operands as its kernel sees them, dequantized (ops/conv2d_int8.h): the
// products of the dequantized values are the kernel's integer products times its scales, so the
// double-precision sum that follows is the kernel's arithmetic.
void dequantize_int8_operands(const ConvolutionParams &p, Tensor &in, Tensor &weights) {
    const Int8Input &q = *p.int8_input;
    for (double &x : in.data)
        x = double(ops::quantize_activation(float(x), q.scale, q.zero_point) - q.zero_point) * q.scale;
    const size_t per_output = weights.data.size() / size_t(p.num_output);
    for (size_t o = 0; o < size_t(p.num_output); o++) {
        double *w = &weights.data[o * per_output];
        float max_abs = 0;
        for (size_t k = 0; k < per_output; k++) max_abs = std::max(max_abs, std::abs(float(w[k])));
        const float scale =
            p.int8_weight_scales.empty() ? ops::int8_weight_scale(max_abs, q.weight_levels) : p.int8_weight_scales[o];
        for (size_t k = 0; k < per_output; k++)
            w[k] = double(ops::quantize_weight(float(w[k]), scale, q.weight_levels)) * scale;
    }
}

}  // namespace

Tensor convolution(const Tensor &in, const ConvolutionParams &p, const Tensor &weights, const Tensor *bias,
                   const Tensor *residual) {
    if (p.fp16) {  // the kernel's operands, rounded to half (ops/conv2d_fp16.h)
        Tensor in_h = in, weights_h = weights;
        for (double &x : in_h.data) x = ops::round_to_half(float(x));
        for (double &w : weights_h.data) w = ops::round_to_half(float(w));
        ConvolutionParams fp32 = p;
        fp32.fp16 = false;
        return convolution(in_h, fp32, weights_h, bias, residual);
    }
    if (p.int8_input) {
        require(p.num_output > 0 && weights.data.size() % size_t(p.num_output) == 0,
                "convolution: the weights are not num_output rows");
        Tensor in_q = in, weights_q = weights;
        dequantize_int8_operands(p, in_q, weights_q);
        ConvolutionParams fp32 = p;
        fp32.int8_input.reset();
        return convolution(in_q, fp32, weights_q, bias, residual);
    }
    require_rank4(in, "convolution");
    const int64_t N = in.shape[0], C = in.shape[1], H = in.shape[2], W = in.shape[3];
    const int64_t Cout = p.num_output, G = p.group;
    require(Cout > 0 && G > 0 && C % G == 0 && Cout % G == 0,
            "convolution: channels and num_output must be positive multiples of group");
    require(
        p.kernel_h > 0 && p.kernel_w > 0 && p.stride_h > 0 && p.stride_w > 0 && p.dilation_h >= 0 && p.dilation_w >= 0,
        "convolution: kernel and stride must be positive, dilation not negative");
    const int64_t Cin_g = C / G, Cout_g = Cout / G;
    const int64_t KH = p.kernel_h, KW = p.kernel_w;
    require_size(weights, Cout * Cin_g * KH * KW, "convolution weights");
    if (p.bias_term) {
        require(bias != nullptr, "convolution: bias_term is set but no bias blob was given");
        require_size(*bias, Cout, "convolution bias");
    }

    // Caffe's output size: floor division over the dilated kernel extent.
    const int64_t extent_h = p.dilation_h * (KH - 1) + 1, extent_w = p.dilation_w * (KW - 1) + 1;
    require(H + 2 * p.pad_h >= extent_h && W + 2 * p.pad_w >= extent_w,
            "convolution: kernel larger than the padded input");
    const int64_t OH = (H + 2 * p.pad_h - extent_h) / p.stride_h + 1;
    const int64_t OW = (W + 2 * p.pad_w - extent_w) / p.stride_w + 1;

    Tensor out = zeros({N, Cout, OH, OW});
    if (p.fused_sum) {
        require(residual != nullptr, "convolution: fused_sum is set but no residual was given");
        require(residual->shape == out.shape, "convolution: the residual's shape is not the output's");
    }
    // Each weight is applied to a whole output plane at once (the rows of the input it meets are
    // contiguous), which keeps the planes in cache: the suites' network checks spend most of their
    // time here. Every output still sums its bias, then its terms in (channel, ky, kx) order, as the
    // definition's loop nest does; padded taps are skipped, never multiplied.
    for (int64_t n = 0; n < N; ++n) {
        for (int64_t co = 0; co < Cout; ++co) {
            const int64_t g = co / Cout_g;
            double *plane_out = &out.data[size_t((n * Cout + co) * OH * OW)];
            std::fill(plane_out, plane_out + OH * OW, p.bias_term ? bias->data[co] : 0.0);
            for (int64_t ci = 0; ci < Cin_g; ++ci) {
                const double *plane_in = &in.data[size_t((n * C + g * Cin_g + ci) * H * W)];
                for (int64_t ky = 0; ky < KH; ++ky) {
                    for (int64_t kx = 0; kx < KW; ++kx) {
                        const double w = weights.data[size_t(((co * Cin_g + ci) * KH + ky) * KW + kx)];
                        // The outputs whose tap kx lands inside the row: iw = ow * stride + offset.
                        const int64_t offset = kx * p.dilation_w - p.pad_w;
                        const int64_t ow_begin = offset >= 0 ? 0 : (-offset + p.stride_w - 1) / p.stride_w;
                        const int64_t ow_end = W - 1 - offset < 0 ? 0 : std::min(OW, (W - 1 - offset) / p.stride_w + 1);
                        for (int64_t oh = 0; oh < OH; ++oh) {
                            const int64_t ih = oh * p.stride_h - p.pad_h + ky * p.dilation_h;
                            if (ih < 0 || ih >= H) continue;  // zero padding
                            const double *row = plane_in + ih * W;
                            double *row_out = plane_out + oh * OW;
                            for (int64_t ow = ow_begin; ow < ow_end; ++ow)
                                row_out[ow] += row[ow * p.stride_w + offset] * w;
                        }
                    }
                }
            }
            for (int64_t i = 0; i < OH * OW; ++i) {
                double sum = plane_out[i];
                if (p.fused_sum) sum += residual->data[size_t((n * Cout + co) * OH * OW + i)];
                plane_out[i] = apply_fused(sum, p);
            }
        }
    }
    return out;
}

Tensor relu(const Tensor &in, float negative_slope) {
    require_consistent(in, "input");
    Tensor out = in;
    for (double &x : out.data) x = relu_value(x, negative_slope);
    return out;
}

namespace {

// x > 0 ? x : alpha (e^x - 1), as ELU and SELU share it.
double elu(double x, double alpha) { return x > 0 ? x : alpha * (std::exp(x) - 1.0); }

double hard_sigmoid(double x, double alpha, double beta) {
    const double a = alpha * x + beta;
    return std::isnan(a) ? a : std::min(std::max(a, 0.0), 1.0);
}

// (alpha x + beta)^gamma as C's pow gives it (NaN for a negative base and a fractional power),
// except that the power 1/2 is the square root (NaN at -inf, where pow gives +inf), as ONNX's
// Sqrt is.
double power(double x, const ActivationParams &p) {
    const double base = double(p.alpha) * x + p.beta;
    return p.gamma == 0.5f ? std::sqrt(base) : std::pow(base, double(p.gamma));
}

}  // namespace

double activation_value(double x, const ActivationParams &p) {
    using F = ops::ActivationFunction;
    const double alpha = p.alpha, beta = p.beta, gamma = p.gamma;
    switch (p.function) {
    case F::Sigmoid: return 1.0 / (1.0 + std::exp(-x));
    case F::Tanh: return std::tanh(x);
    case F::Clip: return std::isnan(x) ? x : std::min(std::max(x, double(p.min)), double(p.max));
    case F::HardSigmoid: return hard_sigmoid(x, alpha, beta);
    case F::HardSwish: return x * hard_sigmoid(x, alpha, beta);
    case F::Elu: return std::isnan(x) ? x : elu(x, alpha);
    case F::Selu: return std::isnan(x) ? x : gamma * elu(x, alpha);
    case F::Softplus: return std::isnan(x) ? x : std::max(x, 0.0) + std::log1p(std::exp(-std::fabs(x)));
    case F::Exp: return std::exp(alpha * x + beta);
    case F::Log: return gamma * std::log(alpha * x + beta);
    case F::Power: return power(x, p);
    case F::Abs: return std::fabs(x);
    case F::Erf: return std::erf(x);
    case F::Gelu: return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)));
    case F::GeluTanh: return 0.5 * x * (1.0 + std::tanh(std::sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x)));
    case F::Silu: return x / (1.0 + std::exp(-x));
    case F::Quantize: {
        // As the kernel computes it (generators/elementwise.h): x times the float reciprocal of
        // the scale, rounded to float, then to the nearest integer. x / scale in double would put
        // a value within float rounding of a step's edge on the other side.
        if (std::isnan(x)) return x;
        const float scaled = float(x) * ops::int8_inverse_scale(float(alpha));
        const double level = std::clamp(double(std::nearbyint(scaled)) + beta, double(p.min), double(p.max));
        return (level - beta) * alpha;
    }
    }
    throw std::runtime_error("activation: unknown function");
}

Tensor activation(const Tensor &in, const ActivationParams &p) {
    require_consistent(in, "input");
    Tensor out = in;
    for (double &x : out.data) x = activation_value(x, p);
    return out;
}

Tensor prelu(const Tensor &in, const Tensor &slope) {
    require_consistent(in, "input");
    require(in.shape.size() >= 2 || slope.data.size() == 1, "prelu: a slope per channel needs at least 2 axes");
    const int64_t channels = slope.data.size() == 1 ? 1 : in.shape[1];
    require(int64_t(slope.data.size()) == channels, "prelu: the slope blob needs one value per channel");
    const int64_t inner = channels == 1 ? 1 : element_count(in.shape) / in.shape[0] / channels;
    Tensor out = in;
    for (size_t i = 0; i < out.data.size(); i++) {
        double &x = out.data[i];
        if (x < 0) x *= slope.data[channels == 1 ? 0 : (int64_t(i) / inner) % channels];
    }
    return out;
}

Tensor pooling(const Tensor &in, const PoolingParams &p, const Shape &out_shape) {
    require_rank4(in, "pooling");
    const int64_t N = in.shape[0], C = in.shape[1], H = in.shape[2], W = in.shape[3];
    require(out_shape.size() == 4 && out_shape[0] == N && out_shape[1] == C,
            "pooling: output shape must be 4-D with the input's batch and channels");
    const int64_t OH = out_shape[2], OW = out_shape[3];
    const int64_t KH = p.global_pooling ? H : p.kernel_h;
    const int64_t KW = p.global_pooling ? W : p.kernel_w;
    require(KH > 0 && KW > 0 && p.stride_h > 0 && p.stride_w > 0, "pooling: kernel and stride must be positive");

    Tensor out = zeros(out_shape);
    for (int64_t n = 0; n < N; ++n) {
        for (int64_t c = 0; c < C; ++c) {
            const double *plane = &in.data[(n * C + c) * H * W];
            for (int64_t oh = 0; oh < OH; ++oh) {
                for (int64_t ow = 0; ow < OW; ++ow) {
                    const int64_t hstart = oh * p.stride_h - p.pad_h;
                    const int64_t wstart = ow * p.stride_w - p.pad_w;
                    double result;
                    if (p.method == PoolingParams::Method::Max) {
                        const int64_t h0 = std::max<int64_t>(hstart, 0);
                        const int64_t w0 = std::max<int64_t>(wstart, 0);
                        const int64_t h1 = std::min(hstart + KH, H);
                        const int64_t w1 = std::min(wstart + KW, W);
                        // Caffe's output-size rule keeps every window inside the image; an
                        // empty one means the caller's out_shape is wrong.
                        require(h0 < h1 && w0 < w1, "pooling: a MAX window misses the image");
                        result = plane[h0 * W + w0];
                        for (int64_t h = h0; h < h1; ++h)
                            for (int64_t w = w0; w < w1; ++w) result = max_keeping_nan(result, plane[h * W + w]);
                    } else {
                        // The divisor is taken before clipping to the image, so it counts the
                        // padding but not whatever the last window sticks out past it.
                        int64_t hend = std::min(hstart + KH, H + p.bottom_pad());
                        int64_t wend = std::min(wstart + KW, W + p.right_pad());
                        int64_t divisor = (hend - hstart) * (wend - wstart);
                        const int64_t h0 = std::max<int64_t>(hstart, 0);
                        const int64_t w0 = std::max<int64_t>(wstart, 0);
                        hend = std::min(hend, H);
                        wend = std::min(wend, W);
                        if (!p.count_padding) divisor = (hend - h0) * (wend - w0);
                        double sum = 0.0;
                        for (int64_t h = h0; h < hend; ++h)
                            for (int64_t w = w0; w < wend; ++w) sum += plane[h * W + w];
                        result = sum / static_cast<double>(divisor);
                    }
                    out.data[((n * C + c) * OH + oh) * OW + ow] = result;
                }
            }
        }
    }
    return out;
}

Tensor pad(const Tensor &in, const PadParams &p) {
    require_rank4(in, "pad");
    require(p.top >= 0 && p.left >= 0 && p.bottom >= 0 && p.right >= 0, "pad: pads must not be negative");
    const int64_t N = in.shape[0], C = in.shape[1], H = in.shape[2], W = in.shape[3];
    const int64_t OH = H + p.top + p.bottom, OW = W + p.left + p.right;
    require(p.mode != "reflect" || (std::max(p.top, p.bottom) < H && std::max(p.left, p.right) < W),
            "pad: reflect pads must be smaller than the plane");
    Tensor out = zeros({N, C, OH, OW});
    // The input index of padded index i along an axis of `length`, or -1 for the constant.
    const auto source = [&](int64_t i, int64_t length) -> int64_t {
        if (i >= 0 && i < length) return i;
        if (p.mode == "edge") return i < 0 ? 0 : length - 1;
        if (p.mode == "wrap") return ((i % length) + length) % length;
        if (p.mode == "reflect") return i < 0 ? -i : 2 * (length - 1) - i;
        return -1;
    };
    for (int64_t plane = 0; plane < N * C; ++plane)
        for (int64_t h = 0; h < OH; ++h)
            for (int64_t w = 0; w < OW; ++w) {
                const int64_t y = source(h - p.top, H), x = source(w - p.left, W);
                out.data[(plane * OH + h) * OW + w] =
                    y < 0 || x < 0 ? double(p.value) : in.data[(plane * H + y) * W + x];
            }
    return out;
}

Tensor lrn(const Tensor &in, const LRNParams &p) {
    require_rank4(in, "lrn");
    // Caffe refuses even sizes; the centred window below relies on that.
    require(p.local_size > 0 && p.local_size % 2 == 1, "lrn: local_size must be odd");
    const int64_t N = in.shape[0], C = in.shape[1], H = in.shape[2], W = in.shape[3];
    const int64_t size = p.local_size, pre_pad = (size - 1) / 2;
    const double alpha = p.alpha, beta = p.beta;

    Tensor out = zeros(in.shape);
    if (p.region == LRNParams::Region::AcrossChannels) {
        for (int64_t n = 0; n < N; ++n) {
            for (int64_t c = 0; c < C; ++c) {
                const int64_t c0 = std::max<int64_t>(c - pre_pad, 0);
                const int64_t c1 = std::min(c - pre_pad + size, C);
                for (int64_t hw = 0; hw < H * W; ++hw) {
                    double sum = 0.0;
                    for (int64_t j = c0; j < c1; ++j) {
                        const double v = in.data[(n * C + j) * H * W + hw];
                        sum += v * v;
                    }
                    const double s = p.k + alpha / static_cast<double>(size) * sum;
                    const int64_t i = (n * C + c) * H * W + hw;
                    out.data[i] = in.data[i] * std::pow(s, -beta);
                }
            }
        }
        return out;
    }

    // WITHIN_CHANNEL: Caffe averages x^2 with an AVE pooling layer padded to keep the size, so
    // the divisor is local_size^2 away from the borders and follows the AVE rule near them.
    Tensor squared = in;
    for (double &x : squared.data) x *= x;
    PoolingParams pool;
    pool.method = PoolingParams::Method::Average;
    pool.kernel_h = pool.kernel_w = p.local_size;
    pool.stride_h = pool.stride_w = 1;
    pool.pad_h = pool.pad_w = static_cast<int>(pre_pad);
    const Tensor averaged = pooling(squared, pool, in.shape);
    for (size_t i = 0; i < out.data.size(); ++i) {
        // Caffe's power layer here uses shift 1, not k.
        out.data[i] = in.data[i] * std::pow(1.0 + alpha * averaged.data[i], -beta);
    }
    return out;
}

Tensor inner_product(const Tensor &in, const InnerProductParams &p, const Tensor &weights, const Tensor *bias) {
    require_consistent(in, "input");
    const size_t axis = canonical_axis(p.axis, in.shape.size());
    int64_t M = count(in.shape, 0, axis), K = count(in.shape, axis, in.shape.size());
    if (p.transpose_input) {
        require(in.shape.size() == 2 && axis == 1, "inner_product: a transposed input must be 2-D, axis 1");
        std::swap(M, K);
    }
    const int64_t N = p.num_output;
    require(N > 0, "inner_product: num_output must be positive");
    require_size(weights, N * K, "inner_product weights");
    if (p.bias_term) {
        require(bias != nullptr, "inner_product: bias_term is set but no bias blob was given");
        require_size(*bias, N, "inner_product bias");
    }

    Shape out_shape(in.shape.begin(), in.shape.begin() + static_cast<std::ptrdiff_t>(axis));
    if (p.transpose_input) out_shape = {M};
    out_shape.push_back(N);
    Tensor out = zeros(out_shape);
    for (int64_t m = 0; m < M; ++m) {
        for (int64_t n = 0; n < N; ++n) {
            double sum = p.bias_term ? bias->data[n] : 0.0;
            for (int64_t k = 0; k < K; ++k) {
                const double w = p.transpose ? weights.data[k * N + n] : weights.data[n * K + k];
                sum += (p.transpose_input ? in.data[k * M + m] : in.data[m * K + k]) * w;
            }
            sum = apply_fused(sum, p);
            out.data[m * N + n] = sum;
        }
    }
    return out;
}

Tensor softmax(const Tensor &in, int axis) {
    require_consistent(in, "input");
    const size_t a = canonical_axis(axis, in.shape.size());
    const int64_t outer = count(in.shape, 0, a), channels = in.shape[a];
    const int64_t inner = count(in.shape, a + 1, in.shape.size());
    require(channels > 0, "softmax: empty softmax axis");

    Tensor out = zeros(in.shape);
    for (int64_t o = 0; o < outer; ++o) {
        for (int64_t i = 0; i < inner; ++i) {
            auto at = [&](int64_t c) { return (o * channels + c) * inner + i; };
            // Subtracting the maximum keeps exp() from overflowing; the result is unchanged.
            double max_value = in.data[at(0)];
            for (int64_t c = 1; c < channels; ++c) max_value = std::max(max_value, in.data[at(c)]);
            double sum = 0.0;
            for (int64_t c = 0; c < channels; ++c) {
                out.data[at(c)] = std::exp(in.data[at(c)] - max_value);
                sum += out.data[at(c)];
            }
            for (int64_t c = 0; c < channels; ++c) out.data[at(c)] /= sum;
        }
    }
    return out;
}

Tensor concat(const std::vector<const Tensor *> &ins, int axis) {
    require(!ins.empty(), "concat: no inputs");
    const Shape &first = ins[0]->shape;
    const size_t a = canonical_axis(axis, first.size());
    Shape out_shape = first;
    out_shape[a] = 0;
    for (const Tensor *t : ins) {
        require_consistent(*t, "input");
        require(t->shape.size() == first.size(), "concat: inputs differ in rank");
        for (size_t d = 0; d < first.size(); ++d)
            require(d == a || t->shape[d] == first[d], "concat: inputs differ outside the concatenation axis");
        out_shape[a] += t->shape[a];
    }

    Tensor out = zeros(out_shape);
    const int64_t outer = count(first, 0, a);
    size_t pos = 0;
    // Row-major layout: for each outer index, each input contributes one contiguous run.
    for (int64_t o = 0; o < outer; ++o) {
        for (const Tensor *t : ins) {
            const int64_t run = count(t->shape, a, t->shape.size());
            for (int64_t j = 0; j < run; ++j) out.data[pos++] = t->data[o * run + j];
        }
    }
    return out;
}

Tensor eltwise(const std::vector<const Tensor *> &ins, const EltwiseParams &p) {
    require(!ins.empty(), "eltwise: no inputs");
    for (const Tensor *t : ins) {
        require_consistent(*t, "input");
        require(t->shape == ins[0]->shape, "eltwise: inputs differ in shape");
    }
    const bool is_sum = p.operation == ops::EltwiseOperation::Sum;
    require(!is_sum || p.coeff.empty() || p.coeff.size() == ins.size(), "eltwise: SUM needs one coeff per input");

    Tensor out = zeros(ins[0]->shape);
    for (size_t i = 0; i < out.data.size(); ++i) {
        double r = 0.0;
        switch (p.operation) {
        case ops::EltwiseOperation::Sum:
            for (size_t k = 0; k < ins.size(); ++k)
                r += (p.coeff.empty() ? 1.0 : static_cast<double>(p.coeff[k])) * ins[k]->data[i];
            break;
        case ops::EltwiseOperation::Product:
            r = 1.0;
            for (const Tensor *t : ins) r *= t->data[i];
            break;
        case ops::EltwiseOperation::Max:
            r = ins[0]->data[i];
            for (const Tensor *t : ins) r = max_keeping_nan(r, t->data[i]);
            break;
        case ops::EltwiseOperation::Quotient:
            r = ins[0]->data[i];
            for (size_t k = 1; k < ins.size(); ++k) r /= ins[k]->data[i];
            break;
        }
        out.data[i] = apply_fused(r, p);
    }
    return out;
}

Tensor batch_norm(const Tensor &in, const BatchNormParams &p, const Tensor &mean, const Tensor &variance,
                  const Tensor &scale_factor) {
    require_consistent(in, "input");
    // Batch statistics are a training-time mode; compiled networks run with the stored ones.
    require(p.use_global_stats, "batch_norm: only use_global_stats is supported");
    // The reference runs layers as imported or with activations fused; folds are the plan's.
    require(p.folded_affines.empty(), "batch_norm: folded Scales are not the reference's to apply");
    require(!in.shape.empty(), "batch_norm: scalar input");
    // Like Caffe: axis 1 holds the channels, a 1-D input has a single channel.
    const int64_t num = in.shape[0];
    const int64_t channels = in.shape.size() > 1 ? in.shape[1] : 1;
    const int64_t spatial = count(in.shape, 2, std::max<size_t>(in.shape.size(), 2));
    require_size(mean, channels, "batch_norm mean");
    require_size(variance, channels, "batch_norm variance");
    require(!scale_factor.data.empty(), "batch_norm: empty scale_factor blob");

    // The stored statistics are running sums; scale_factor is their normaliser.
    const double s = scale_factor.data[0] == 0.0 ? 0.0 : 1.0 / scale_factor.data[0];
    Tensor out = zeros(in.shape);
    for (int64_t n = 0; n < num; ++n) {
        for (int64_t c = 0; c < channels; ++c) {
            const double m = mean.data[c] * s;
            const double denom = std::sqrt(variance.data[c] * s + static_cast<double>(p.eps));
            for (int64_t j = 0; j < spatial; ++j) {
                const int64_t i = (n * channels + c) * spatial + j;
                out.data[i] = (in.data[i] - m) / denom;
                out.data[i] = apply_fused(out.data[i], p);
            }
        }
    }
    return out;
}

Tensor scale(const Tensor &in, const ScaleParams &p, const Tensor &scale, const Tensor *bias) {
    require_consistent(in, "input");
    const size_t rank = in.shape.size();
    const size_t axis = canonical_axis(p.axis, rank);
    require(p.num_axes >= -1, "scale: num_axes must be -1 or more");
    const size_t end = p.num_axes == -1 ? rank : axis + static_cast<size_t>(p.num_axes);
    require(end <= rank, "scale: axis + num_axes exceeds the input's rank");
    const int64_t outer = count(in.shape, 0, axis), dim = count(in.shape, axis, end);
    const int64_t inner = count(in.shape, end, rank);
    require_size(scale, dim, "scale blob");
    if (p.bias_term) {
        require(bias != nullptr, "scale: bias_term is set but no bias blob was given");
        require_size(*bias, dim, "scale bias");
    }

    Tensor out = zeros(in.shape);
    for (int64_t o = 0; o < outer; ++o) {
        for (int64_t d = 0; d < dim; ++d) {
            for (int64_t j = 0; j < inner; ++j) {
                const int64_t i = (o * dim + d) * inner + j;
                out.data[i] = in.data[i] * scale.data[d] + (p.bias_term ? bias->data[d] : 0.0);
                out.data[i] = apply_fused(out.data[i], p);
            }
        }
    }
    return out;
}

namespace {

// out[index] = in[f(index)] for every element of out_shape, index as per-axis coordinates.
template <typename Source>
Tensor gather(const Tensor &in, const Shape &out_shape, Source source) {
    require_consistent(in, "input");
    Tensor out = zeros(out_shape);
    std::vector<int64_t> index(out_shape.size(), 0);
    for (double &value : out.data) {
        value = in.data.at(size_t(source(index)));
        for (size_t d = index.size(); d-- > 0;) {
            if (++index[d] < out_shape[d]) break;
            index[d] = 0;
        }
    }
    return out;
}

}  // namespace

Tensor transpose(const Tensor &in, const std::vector<int> &perm) {
    require(perm.size() == in.shape.size(), "transpose: perm and the input differ in rank");
    const std::vector<int64_t> strides = row_major_strides(in.shape);
    Shape out_shape;
    for (int a : perm) out_shape.push_back(in.shape.at(size_t(a)));
    return gather(in, out_shape, [&](const std::vector<int64_t> &index) {
        int64_t at = 0;
        for (size_t d = 0; d < perm.size(); d++) at += index[d] * strides[perm[d]];
        return at;
    });
}

Tensor crop(const Tensor &in, const CropParams &p) {
    require(
        p.starts.size() == in.shape.size() && p.steps.size() == in.shape.size() && p.sizes.size() == in.shape.size(),
        "crop: the window needs a start, a step and a size per axis");
    const std::vector<int64_t> strides = row_major_strides(in.shape);
    return gather(in, Shape(p.sizes.begin(), p.sizes.end()), [&](const std::vector<int64_t> &index) {
        int64_t at = 0;
        for (size_t d = 0; d < index.size(); d++) {
            const int64_t i = p.starts[d] + index[d] * p.steps[d];
            require(i >= 0 && i < in.shape[d], "crop: the window leaves the input");
            at += i * strides[d];
        }
        return at;
    });
}

std::vector<Tensor> slice(const Tensor &in, int axis, const std::vector<Shape> &out_shapes) {
    const size_t a = canonical_axis(axis, in.shape.size());
    std::vector<Tensor> pieces;
    int64_t begin = 0;
    for (const Shape &shape : out_shapes) {
        CropParams window;
        window.starts.assign(in.shape.size(), 0), window.steps.assign(in.shape.size(), 1);
        window.sizes = shape;
        window.starts[a] = begin;
        begin += shape.at(a);
        pieces.push_back(crop(in, window));
    }
    require(begin == in.shape[a], "slice: the pieces do not cover the axis");
    return pieces;
}

Tensor expand(const Tensor &in, const Shape &shape) {
    require(in.shape.size() <= shape.size(), "expand: the input has more axes than the shape");
    const size_t lead = shape.size() - in.shape.size();
    const std::vector<int64_t> strides = row_major_strides(in.shape);
    return gather(in, shape, [&](const std::vector<int64_t> &index) {
        int64_t at = 0;
        for (size_t d = 0; d < in.shape.size(); d++) {
            require(in.shape[d] == 1 || in.shape[d] == shape[lead + d], "expand: shapes do not broadcast");
            if (in.shape[d] != 1) at += index[lead + d] * strides[d];
        }
        return at;
    });
}

namespace {

// ONNX's coordinate_transformation_mode, in double precision.
double resize_source(int64_t out, int64_t in_length, int64_t out_length, double scale, const std::string &mode) {
    const double o = double(out);
    if (mode == "asymmetric") return o / scale;
    if (mode == "align_corners")
        return out_length == 1 ? 0.0 : o * double(in_length - 1) / (double(in_length) * scale - 1.0);
    if (mode == "tf_half_pixel_for_nearest") return (o + 0.5) / scale;
    if (mode == "pytorch_half_pixel") return out_length > 1 ? (o + 0.5) / scale - 0.5 : 0.0;
    if (mode == "half_pixel_symmetric") {
        const double adjustment = double(out_length) / (scale * double(in_length));
        return double(in_length) / 2.0 * (1.0 - adjustment) + (o + 0.5) / scale - 0.5;
    }
    require(mode == "half_pixel", "resize: unknown coordinate transformation " + mode);
    return (o + 0.5) / scale - 0.5;
}

int64_t resize_nearest(double coordinate, int64_t length, const std::string &rounding) {
    double index = coordinate;
    if (rounding == "floor") index = std::floor(coordinate);
    else if (rounding == "ceil") index = std::ceil(coordinate);
    else if (rounding == "round_prefer_ceil") index = std::floor(coordinate + 0.5);
    else index = std::ceil(coordinate - 0.5);  // round_prefer_floor
    return std::min<int64_t>(std::max<int64_t>(int64_t(index), 0), length - 1);
}

}  // namespace

Tensor resize(const Tensor &in, const ResizeParams &p) {
    require_rank4(in, "resize");
    const int64_t N = in.shape[0], C = in.shape[1], H = in.shape[2], W = in.shape[3];
    Tensor out = zeros({N, C, p.out_h, p.out_w});
    for (int64_t plane = 0; plane < N * C; plane++) {
        const double *src = &in.data[size_t(plane * H * W)];
        double *dst = &out.data[size_t(plane * p.out_h * p.out_w)];
        for (int64_t oy = 0; oy < p.out_h; oy++) {
            const double sy = resize_source(oy, H, p.out_h, p.scale_h, p.coordinates);
            for (int64_t ox = 0; ox < p.out_w; ox++) {
                const double sx = resize_source(ox, W, p.out_w, p.scale_w, p.coordinates);
                double &v = dst[oy * p.out_w + ox];
                if (p.mode == "nearest") {
                    v = src[resize_nearest(sy, H, p.rounding) * W + resize_nearest(sx, W, p.rounding)];
                    continue;
                }
                const double fy = std::clamp(sy, 0.0, double(H - 1)), fx = std::clamp(sx, 0.0, double(W - 1));
                const int64_t y0 = int64_t(std::floor(fy)), x0 = int64_t(std::floor(fx));
                const int64_t y1 = std::min(y0 + 1, H - 1), x1 = std::min(x0 + 1, W - 1);
                const double wy = fy - double(y0), wx = fx - double(x0);
                // An element weighted 0 takes no part (an infinite one would make 0 x inf = NaN).
                const auto blend = [](double a, double b, double w) { return w == 0 ? a : a * (1 - w) + b * w; };
                v = blend(blend(src[y0 * W + x0], src[y0 * W + x1], wx), blend(src[y1 * W + x0], src[y1 * W + x1], wx),
                          wy);
            }
        }
    }
    return out;
}

Tensor deconvolution(const Tensor &in, const DeconvolutionParams &p, const Shape &out_shape, const Tensor &weights,
                     const Tensor *bias) {
    require_rank4(in, "deconvolution");
    const int64_t N = in.shape[0], C = in.shape[1], H = in.shape[2], W = in.shape[3];
    const int64_t OC = out_shape.at(1), OH = out_shape.at(2), OW = out_shape.at(3);
    const int64_t in_per_group = C / p.group, out_per_group = OC / p.group;
    require_size(weights, C * out_per_group * p.kernel_h * p.kernel_w, "deconvolution weights");
    Tensor out = zeros(out_shape);
    for (int64_t n = 0; n < N; ++n)
        for (int64_t oc = 0; oc < OC; ++oc)
            for (int64_t i = 0; i < OH * OW; ++i)
                out.data[size_t((n * OC + oc) * OH * OW + i)] = bias ? bias->data[oc] : 0.0;
    // Each input pixel scatters its kernel, as the layer is defined (the kernels gather).
    for (int64_t n = 0; n < N; ++n)
        for (int64_t c = 0; c < C; ++c) {
            const int64_t g = c / in_per_group;
            for (int64_t iy = 0; iy < H; ++iy)
                for (int64_t ix = 0; ix < W; ++ix) {
                    const double v = in.data[size_t(((n * C + c) * H + iy) * W + ix)];
                    for (int64_t o = 0; o < out_per_group; ++o)
                        for (int64_t ky = 0; ky < p.kernel_h; ++ky) {
                            const int64_t oy = iy * p.stride_h - p.pad_h + ky * p.dilation_h;
                            if (oy < 0 || oy >= OH) continue;
                            for (int64_t kx = 0; kx < p.kernel_w; ++kx) {
                                const int64_t ox = ix * p.stride_w - p.pad_w + kx * p.dilation_w;
                                if (ox < 0 || ox >= OW) continue;
                                out.data[size_t(((n * OC + g * out_per_group + o) * OH + oy) * OW + ox)] +=
                                    v *
                                    weights.data[size_t(((c * out_per_group + o) * p.kernel_h + ky) * p.kernel_w + kx)];
                            }
                        }
                }
        }
    return out;
}

}  // namespace cortado::reference
