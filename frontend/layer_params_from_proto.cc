#include "frontend/layer_params_from_proto.h"

#include <cmath>
#include <limits>

#include "frontend/compile_error.h"

namespace cortado {
namespace {

// Dimensions cortado accepts for one kernel/stride/pad/num_output value: enough for any real
// network, small enough that products of a few of them cannot overflow int64.
constexpr int64_t kMaxParameter = 1 << 20;

class Converter {
  public:
    Converter(const caffe::LayerParameter &proto, const SourceLocation &where) : proto_(proto), where_(where) {}

    [[noreturn]] void fail(const std::string &message) const {
        throw CompileError(where_.to_string() + ": layer '" + proto_.name() + "' (" + proto_.type() + "): " + message);
    }

    int checked(int64_t value, const char *what, int64_t lowest) const {
        if (value < lowest || value > kMaxParameter)
            fail(std::string(what) + " is " + std::to_string(value) + ", expected " + std::to_string(lowest) + ".." +
                 std::to_string(kMaxParameter));
        return static_cast<int>(value);
    }

    // A Convolution's repeated kernel_size/stride/pad/dilation, or its _h/_w fields, as Caffe's
    // BaseConvolutionLayer::LayerSetUp reads them: once for both axes or once per axis; the _h/_w
    // fields replace the list, and one of them alone leaves the other at its default, 0. A pad
    // may be 0; a kernel or stride of 0 is refused (Caffe checks kernels; a zero stride divides
    // by zero there).
    void spatial(const google::protobuf::RepeatedField<uint32_t> &list, bool has_h, uint32_t h, bool has_w, uint32_t w,
                 int fallback, const char *what, int lowest, int *out_h, int *out_w) const {
        if (has_h || has_w) {
            if (list.size() > 0) fail(std::string(what) + " and " + what + "_h/_w both given");
            *out_h = checked_side(h, has_h, what, "_h", has_w ? "_w" : nullptr, lowest);
            *out_w = checked_side(w, has_w, what, "_w", has_h ? "_h" : nullptr, lowest);
        } else if (list.size() == 0) {
            *out_h = *out_w = fallback;
        } else if (list.size() <= 2) {
            *out_h = checked(list[0], what, lowest);
            *out_w = checked(list[list.size() - 1], what, lowest);
        } else {
            fail(std::string(what) + " has " + std::to_string(list.size()) +
                 " values; only 2-D convolution is supported");
        }
    }

    int checked_side(uint32_t value, bool given, const char *what, const char *side, const char *other,
                     int lowest) const {
        if (!given && value < uint32_t(lowest))
            fail(std::string(what) + side + " is not given, so it is 0 (as in Caffe) beside " + what + other +
                 ": give both, or " + what + " alone");
        return checked(value, (std::string(what) + side).c_str(), lowest);
    }

    ConvolutionParams convolution() const {
        const auto &p = proto_.convolution_param();
        ConvolutionParams c;
        if (!p.has_num_output()) fail("num_output is missing");
        c.num_output = checked(p.num_output(), "num_output", 1);
        c.bias_term = p.bias_term();
        c.kernel_h = c.kernel_w = 0;
        spatial(p.kernel_size(), p.has_kernel_h(), p.kernel_h(), p.has_kernel_w(), p.kernel_w(), 0, "kernel", 1,
                &c.kernel_h, &c.kernel_w);
        if (c.kernel_h == 0) fail("kernel_size (or kernel_h and kernel_w) is missing");
        spatial(p.stride(), p.has_stride_h(), p.stride_h(), p.has_stride_w(), p.stride_w(), 1, "stride", 1, &c.stride_h,
                &c.stride_w);
        spatial(p.pad(), p.has_pad_h(), p.pad_h(), p.has_pad_w(), p.pad_w(), 0, "pad", 0, &c.pad_h, &c.pad_w);
        // Caffe leaves dilation unchecked: 0 is accepted, and every tap then reads the one pixel
        // under the kernel's origin (a window of extent 1).
        spatial(p.dilation(), false, 0, false, 0, 1, "dilation", 0, &c.dilation_h, &c.dilation_w);
        c.group = checked(p.group(), "group", 1);
        if (c.num_output % c.group) fail("num_output is not a multiple of group");
        if (p.axis() != 1) fail("only axis 1 (channels) is supported");
        c.weight_filler = convert_filler(p.weight_filler(), p.has_weight_filler());
        c.bias_filler = convert_filler(p.bias_filler(), p.has_bias_filler());
        return c;
    }

    PoolingParams pooling() const {
        const auto &p = proto_.pooling_param();
        PoolingParams c;
        if (p.pool() == caffe::PoolingParameter::STOCHASTIC)
            fail("STOCHASTIC pooling is a training-time method; use MAX or AVE");
        c.method =
            p.pool() == caffe::PoolingParameter::MAX ? PoolingParams::Method::Max : PoolingParams::Method::Average;
        c.global_pooling = p.global_pooling();
        c.round_up = p.round_mode() == caffe::PoolingParameter::CEIL;
        if (p.has_ceil_mode()) {  // the forks' field for the same rounding
            if (p.has_round_mode() && p.ceil_mode() != c.round_up) fail("round_mode and ceil_mode disagree");
            c.round_up = p.ceil_mode();
        }
        const bool has_size = p.has_kernel_size();
        const bool has_hw = p.has_kernel_h() || p.has_kernel_w();
        if (c.global_pooling) {
            if (has_size || has_hw) fail("global_pooling takes no kernel size");
        } else {
            // Caffe refuses kernel_size with both kernel_h and kernel_w, but takes kernel_size with
            // one of them (PoolingLayer::LayerSetUp's `!has_kernel_size != !(has_h && has_w)`) and
            // then uses kernel_size alone.
            if (has_size && p.has_kernel_h() && p.has_kernel_w()) fail("kernel_size and kernel_h/_w both given");
            if (!has_size && !(p.has_kernel_h() && p.has_kernel_w()))
                fail("kernel_size (or kernel_h and kernel_w) is missing");
            c.kernel_h = checked(has_size ? p.kernel_size() : p.kernel_h(), "kernel", 1);
            c.kernel_w = checked(has_size ? p.kernel_size() : p.kernel_w(), "kernel", 1);
        }
        // Caffe's PoolingLayer::LayerSetUp, unlike Convolution's, wants pad_h with pad_w and
        // stride_h with stride_w.
        if (p.has_pad() && (p.has_pad_h() || p.has_pad_w())) fail("pad and pad_h/_w both given");
        if (p.has_pad_h() != p.has_pad_w()) fail("pad_h and pad_w go together in Pooling: give both, or pad");
        c.pad_h = checked(p.has_pad_h() ? p.pad_h() : p.pad(), "pad", 0);
        c.pad_w = checked(p.has_pad_w() ? p.pad_w() : p.pad(), "pad", 0);
        if (p.has_stride() && (p.has_stride_h() || p.has_stride_w())) fail("stride and stride_h/_w both given");
        if (p.has_stride_h() != p.has_stride_w())
            fail("stride_h and stride_w go together in Pooling: give both, or stride");
        c.stride_h = checked(p.has_stride_h() ? p.stride_h() : p.stride(), "stride", 1);
        c.stride_w = checked(p.has_stride_w() ? p.stride_w() : p.stride(), "stride", 1);
        if (c.global_pooling && (c.pad_h || c.pad_w || c.stride_h != 1 || c.stride_w != 1))
            fail("global_pooling needs pad 0 and stride 1");
        if (!c.global_pooling && (c.pad_h >= c.kernel_h || c.pad_w >= c.kernel_w))
            fail("pad must be smaller than the kernel");
        return c;
    }

    LRNParams lrn() const {
        const auto &p = proto_.lrn_param();
        LRNParams c;
        c.local_size = checked(p.local_size(), "local_size", 1);
        if (c.local_size % 2 == 0) fail("local_size must be odd");
        c.alpha = p.alpha();
        c.beta = p.beta();
        c.k = p.k();
        c.region = p.norm_region() == caffe::LRNParameter::ACROSS_CHANNELS ? LRNParams::Region::AcrossChannels
                                                                           : LRNParams::Region::WithinChannel;
        return c;
    }

    InnerProductParams inner_product() const {
        const auto &p = proto_.inner_product_param();
        InnerProductParams c;
        if (!p.has_num_output()) fail("num_output is missing");
        c.num_output = checked(p.num_output(), "num_output", 1);
        c.bias_term = p.bias_term();
        c.axis = p.axis();
        c.transpose = p.transpose();
        c.weight_filler = convert_filler(p.weight_filler(), p.has_weight_filler());
        c.bias_filler = convert_filler(p.bias_filler(), p.has_bias_filler());
        return c;
    }

    EltwiseParams eltwise() const {
        const auto &p = proto_.eltwise_param();
        EltwiseParams c;
        switch (p.operation()) {
        case caffe::EltwiseParameter::PROD: c.operation = ops::EltwiseOperation::Product; break;
        case caffe::EltwiseParameter::SUM: c.operation = ops::EltwiseOperation::Sum; break;
        default: c.operation = ops::EltwiseOperation::Max; break;
        }
        c.coeff.assign(p.coeff().begin(), p.coeff().end());
        if (!c.coeff.empty() && c.operation != ops::EltwiseOperation::Sum)
            fail("coeff is only allowed with operation SUM");
        if (!c.coeff.empty() && c.coeff.size() != static_cast<size_t>(proto_.bottom_size()))
            fail("has " + std::to_string(c.coeff.size()) + " coeff values for " + std::to_string(proto_.bottom_size()) +
                 " bottoms");
        return c;
    }

    ActivationParams clip() const {
        const auto &p = proto_.clip_param();
        if (!p.has_min() || !p.has_max()) fail("clip_param needs both min and max");
        if (!(p.min() <= p.max())) fail("clip_param's min is above its max");
        return ActivationParams{ops::ActivationFunction::Clip, p.min(), p.max()};
    }

    // Deconvolution reads convolution_param as Convolution does.
    DeconvolutionParams deconvolution() const {
        const ConvolutionParams c = convolution();
        DeconvolutionParams d;
        d.num_output = c.num_output, d.bias_term = c.bias_term;
        d.kernel_h = c.kernel_h, d.kernel_w = c.kernel_w, d.stride_h = c.stride_h, d.stride_w = c.stride_w;
        d.pad_h = c.pad_h, d.pad_w = c.pad_w, d.dilation_h = c.dilation_h, d.dilation_w = c.dilation_w;
        d.group = c.group;
        d.weight_filler = c.weight_filler, d.bias_filler = c.bias_filler;
        return d;
    }

    // Caffe's Exp and Log take a base (-1 for e, else positive), a scale and a shift.
    float natural_log_of_base(float base) const {
        if (base == -1.0f) return 1.0f;
        if (!(base > 0.0f) || !std::isfinite(base))
            fail("base " + std::to_string(base) + " must be -1 (e) or positive and finite");
        return std::log(base);
    }

    // base^(shift + scale x) = e^(alpha x + beta), alpha and beta scaled by ln base.
    ActivationParams exp() const {
        const auto &p = proto_.exp_param();
        const float ln_base = natural_log_of_base(p.base());
        ActivationParams a{ops::ActivationFunction::Exp};
        a.alpha = p.scale() * ln_base, a.beta = p.shift() * ln_base;
        return a;
    }

    // log_base(shift + scale x) = ln(shift + scale x) / ln base.
    ActivationParams log() const {
        const auto &p = proto_.log_param();
        if (p.base() == 1.0f) fail("base 1 has no logarithm");
        ActivationParams a{ops::ActivationFunction::Log};
        a.alpha = p.scale(), a.beta = p.shift(), a.gamma = 1.0f / natural_log_of_base(p.base());
        return a;
    }

    ActivationParams power() const {
        const auto &p = proto_.power_param();
        ActivationParams a{ops::ActivationFunction::Power};
        a.alpha = p.scale(), a.beta = p.shift(), a.gamma = p.power();
        return a;
    }

    ActivationParams elu() const {
        ActivationParams a{ops::ActivationFunction::Elu};
        a.alpha = proto_.elu_param().alpha();
        return a;
    }

    PReLUParams prelu() const {
        const auto &p = proto_.prelu_param();
        PReLUParams c;
        c.channel_shared = p.channel_shared();
        // Caffe's PReLU starts every slope at 0.25 unless told otherwise.
        c.filler.type = "constant";
        c.filler.value = 0.25f;
        if (p.has_filler()) c.filler = convert_filler(p.filler(), true);
        return c;
    }

    BiasParams bias() const {
        const auto &p = proto_.bias_param();
        if (proto_.bottom_size() != 1) fail("only the one-bottom form (learned bias) is supported");
        return BiasParams{p.axis(), p.num_axes(), convert_filler(p.filler(), p.has_filler())};
    }

    ReshapeParams reshape() const {
        const auto &p = proto_.reshape_param();
        ReshapeParams c;
        for (int64_t d : p.shape().dim()) c.shape.push_back(d);
        c.axis = p.axis();
        c.num_axes = p.num_axes();
        return c;
    }

    ScaleParams scale() const {
        const auto &p = proto_.scale_param();
        ScaleParams c;
        c.axis = p.axis();
        c.num_axes = p.num_axes();
        c.bias_term = p.bias_term();
        // Caffe's Scale layer fills its scale with 1 unless told otherwise.
        c.filler.type = "constant";
        c.filler.value = 1.0f;
        if (p.has_filler()) c.filler = convert_filler(p.filler(), true);
        c.bias_filler = convert_filler(p.bias_filler(), p.has_bias_filler());
        return c;
    }

    void expect_counts(int bottoms_min, int bottoms_max, int tops_min, int tops_max) const {
        const int b = proto_.bottom_size(), t = proto_.top_size();
        auto range = [](int lo, int hi) {
            if (hi == std::numeric_limits<int>::max()) return std::to_string(lo) + " or more";
            return lo == hi ? std::to_string(lo) : std::to_string(lo) + ".." + std::to_string(hi);
        };
        if (b < bottoms_min || b > bottoms_max)
            fail("has " + std::to_string(b) + " bottoms, expected " + range(bottoms_min, bottoms_max));
        if (t < tops_min || t > tops_max)
            fail("has " + std::to_string(t) + " tops, expected " + range(tops_min, tops_max));
    }

    LayerParams convert() const {
        const std::string &type = proto_.type();
        constexpr int kMany = std::numeric_limits<int>::max();
        if (type == "Split") {
            expect_counts(1, 1, 1, kMany);
            return SplitParams{};
        }
        if (type == "Slice") {
            expect_counts(1, 1, 1, kMany);
            const auto &p = proto_.slice_param();
            SliceParams c;
            c.axis = p.has_slice_dim() && !p.has_axis() ? int(p.slice_dim()) : p.axis();
            c.points.assign(p.slice_point().begin(), p.slice_point().end());
            return c;
        }
        if (type == "Crop") {
            expect_counts(2, 2, 1, 1);
            CropParams c;
            c.from_reference = true;
            c.axis = proto_.crop_param().axis();
            c.offsets.assign(proto_.crop_param().offset().begin(), proto_.crop_param().offset().end());
            return c;
        }
        if (type == "Concat" || type == "Eltwise") expect_counts(1, kMany, 1, 1);
        else if (type == "Scale") expect_counts(1, 2, 1, 1);  // the second bottom: a computed scale
        else expect_counts(1, 1, 1, 1);

        if (type == "Convolution") return convolution();
        if (type == "Deconvolution") return deconvolution();
        if (type == "ReLU") return ReLUParams{proto_.relu_param().negative_slope()};
        if (type == "Sigmoid") return ActivationParams{ops::ActivationFunction::Sigmoid};
        if (type == "TanH") return ActivationParams{ops::ActivationFunction::Tanh};
        if (type == "Clip") return clip();
        if (type == "ELU") return elu();
        if (type == "AbsVal") return ActivationParams{ops::ActivationFunction::Abs};
        if (type == "BNLL") return ActivationParams{ops::ActivationFunction::Softplus};
        if (type == "Exp") return exp();
        if (type == "Log") return log();
        if (type == "Power") return power();
        if (type == "PReLU") return prelu();
        if (type == "Bias") return bias();
        if (type == "Pooling") return pooling();
        if (type == "LRN") return lrn();
        if (type == "InnerProduct") return inner_product();
        if (type == "Softmax") return SoftmaxParams{proto_.softmax_param().axis()};
        if (type == "Concat") {
            const auto &p = proto_.concat_param();
            return ConcatParams{p.has_axis() || !p.has_concat_dim() ? p.axis() : static_cast<int>(p.concat_dim())};
        }
        if (type == "Eltwise") return eltwise();
        if (type == "Dropout") return DropoutParams{proto_.dropout_param().dropout_ratio()};
        if (type == "Flatten") return FlattenParams{proto_.flatten_param().axis(), proto_.flatten_param().end_axis()};
        if (type == "Reshape") return reshape();
        if (type == "BatchNorm") {
            const auto &p = proto_.batch_norm_param();
            if (p.has_use_global_stats() && !p.use_global_stats())
                fail(
                    "use_global_stats: false computes batch statistics (training); cortado "
                    "compiles inference with the stored statistics");
            BatchNormParams params;
            params.eps = p.eps();
            return params;
        }
        if (type == "Scale") return scale();
        fail("is not a type cortado compiles");
    }

  private:
    const caffe::LayerParameter &proto_;
    const SourceLocation &where_;
};

}  // namespace

Filler convert_filler(const caffe::FillerParameter &proto, bool given) {
    Filler f;
    f.given = given;
    f.type = proto.type();
    f.value = proto.value();
    f.min = proto.min();
    f.max = proto.max();
    f.mean = proto.mean();
    f.std = proto.std();
    switch (proto.variance_norm()) {
    case caffe::FillerParameter::FAN_OUT: f.variance_norm = Filler::VarianceNorm::FanOut; break;
    case caffe::FillerParameter::AVERAGE: f.variance_norm = Filler::VarianceNorm::Average; break;
    default: f.variance_norm = Filler::VarianceNorm::FanIn; break;
    }
    return f;
}

LayerParams convert_layer_params(const caffe::LayerParameter &proto, const SourceLocation &where) {
    return Converter(proto, where).convert();
}

}  // namespace cortado
