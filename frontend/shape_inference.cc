#include "frontend/shape_inference.h"

#include <algorithm>

#include "frontend/compile_error.h"

namespace cortado {
namespace {

// Activations larger than this are surely a mistake in the prototxt (or hostile input); the
// limit keeps every later size computation far from int64 overflow.
constexpr int64_t kMaxElements = int64_t(1) << 34;

class ShapeInference {
  public:
    ShapeInference(Graph &graph, Layer &layer) : graph_(graph), layer_(layer) {}

    [[noreturn]] void fail(const std::string &message) const {
        throw CompileError(layer_.location.to_string() + ": layer '" + layer_.name + "' (" + layer_.type +
                           "): " + message);
    }

    // Every layer type but Input and Constant reads at least the input it asks for (an ONNX
    // Concat or Sum may list none).
    const Shape &in(size_t i) const {
        if (i >= layer_.inputs.size())
            fail("has " + std::to_string(layer_.inputs.size()) + " inputs; it needs at least " + std::to_string(i + 1));
        return graph_.values[layer_.inputs[i]].shape;
    }
    void set_out(size_t i, Shape shape) const {
        int64_t count = 1;
        for (int64_t d : shape) {
            if (d <= 0)
                fail("would produce top '" + graph_.values[layer_.outputs[i]].blob_name + "' of shape " +
                     shape_to_string(shape) + ", which is empty");
            if (d > kMaxElements || count > kMaxElements / d)
                fail("would produce top '" + graph_.values[layer_.outputs[i]].blob_name + "' of shape " +
                     shape_to_string(shape) + ", which is too large");
            count *= d;
        }
        graph_.values[layer_.outputs[i]].shape = std::move(shape);
    }
    void need_rank(size_t i, size_t rank) const {
        if (in(i).size() != rank)
            fail("bottom '" + graph_.values[layer_.inputs[i]].blob_name + "' has shape " + shape_to_string(in(i)) +
                 "; expected " + std::to_string(rank) + " axes");
    }
    int axis(int a, size_t rank) const {
        return canonical_axis(a, rank, layer_.location.to_string() + ": layer '" + layer_.name + "'");
    }
    static int64_t product(const Shape &s, size_t from, size_t to) {
        int64_t p = 1;
        for (size_t i = from; i < to; i++) p *= s[i];
        return p;
    }

    void operator()(const InputParams &) const {}

    void operator()(const ConvolutionParams &p) const {
        need_rank(0, 4);
        // A second input is the residual that fusion gave it (fused_sum), and nothing else.
        if (layer_.inputs.size() != (p.fused_sum ? 2u : 1u))
            fail("has " + std::to_string(layer_.inputs.size()) + " inputs; expected " + (p.fused_sum ? "2 (the input and the residual)" : "1"));
        const Shape &x = in(0);
        if (x[1] % p.group)
            fail("input channels " + std::to_string(x[1]) + " are not a multiple of group " + std::to_string(p.group));
        const int64_t ext_h = int64_t(p.dilation_h) * (p.kernel_h - 1) + 1;
        const int64_t ext_w = int64_t(p.dilation_w) * (p.kernel_w - 1) + 1;
        const int64_t h = (x[2] + 2 * p.pad_h - ext_h) / p.stride_h + 1;
        const int64_t w = (x[3] + 2 * p.pad_w - ext_w) / p.stride_w + 1;
        if (x[2] + 2 * p.pad_h < ext_h || x[3] + 2 * p.pad_w < ext_w)
            fail("kernel " + std::to_string(ext_h) + "x" + std::to_string(ext_w) +
                 " (dilated) is larger than the padded input " + shape_to_string(x));
        set_out(0, {x[0], p.num_output, h, w});
        if (p.fused_sum && in(1) != graph_.values[layer_.outputs[0]].shape)
            fail("the residual '" + graph_.values[layer_.inputs[1]].blob_name + "' has shape " +
                 shape_to_string(in(1)) + " but the output has " +
                 shape_to_string(graph_.values[layer_.outputs[0]].shape));
        layer_.weight_shapes = {{p.num_output, x[1] / p.group, p.kernel_h, p.kernel_w}};
        if (p.bias_term) layer_.weight_shapes.push_back({p.num_output});
    }

    void operator()(const DeconvolutionParams &p) const {
        need_rank(0, 4);
        const Shape &x = in(0);
        if (p.group < 1 || x[1] % p.group || p.num_output % p.group)
            fail("channels " + std::to_string(x[1]) + " and num_output " + std::to_string(p.num_output) +
                 " must be multiples of group " + std::to_string(p.group));
        if (p.kernel_h < 1 || p.kernel_w < 1 || p.stride_h < 1 || p.stride_w < 1 || p.dilation_h < 1 ||
            p.dilation_w < 1 || p.pad_h < 0 || p.pad_w < 0 || p.bottom_pad() < 0 || p.right_pad() < 0)
            fail("kernel, stride and dilation must be positive and pads not negative");
        if (p.output_pad_h < 0 || p.output_pad_w < 0) fail("output_padding must not be negative");
        const int64_t h = int64_t(p.stride_h) * (x[2] - 1) + int64_t(p.dilation_h) * (p.kernel_h - 1) + 1 - p.pad_h -
                          p.bottom_pad() + p.output_pad_h;
        const int64_t w = int64_t(p.stride_w) * (x[3] - 1) + int64_t(p.dilation_w) * (p.kernel_w - 1) + 1 - p.pad_w -
                          p.right_pad() + p.output_pad_w;
        set_out(0, {x[0], p.num_output, h, w});
        layer_.weight_shapes = {{x[1], p.num_output / p.group, p.kernel_h, p.kernel_w}};
        if (p.bias_term) layer_.weight_shapes.push_back({p.num_output});
    }

    void operator()(const ReLUParams &) const { set_out(0, in(0)); }
    void operator()(const ActivationParams &) const { set_out(0, in(0)); }
    void operator()(const DropoutParams &) const { set_out(0, in(0)); }
    void operator()(const LRNParams &) const {
        need_rank(0, 4);
        set_out(0, in(0));
    }

    void operator()(const PoolingParams &p) const {
        need_rank(0, 4);
        const Shape &x = in(0);
        int64_t kh = p.global_pooling ? x[2] : p.kernel_h;
        int64_t kw = p.global_pooling ? x[3] : p.kernel_w;
        if (x[2] + p.pad_h + p.bottom_pad() < kh || x[3] + p.pad_w + p.right_pad() < kw)
            fail("kernel is larger than the padded input " + shape_to_string(x));
        auto extent = [&](int64_t size, int64_t k, int64_t pad, int64_t far_pad, int64_t stride) {
            int64_t span = size + pad + far_pad - k;
            int64_t out = (p.round_up ? (span + stride - 1) / stride : span / stride) + 1;
            // The last window must start inside the image (not in the far padding).
            const bool rule = p.last_window_rule_always || p.pad_h > 0 || p.pad_w > 0;
            if (rule && (out - 1) * stride >= size + pad) out--;
            return out;
        };
        set_out(0, {x[0], x[1], extent(x[2], kh, p.pad_h, p.bottom_pad(), p.stride_h),
                    extent(x[3], kw, p.pad_w, p.right_pad(), p.stride_w)});
    }

    void operator()(const PadParams &p) const {
        need_rank(0, 4);
        const Shape &x = in(0);
        set_out(0, {x[0], x[1], x[2] + p.top + p.bottom, x[3] + p.left + p.right});
    }

    void operator()(const InnerProductParams &p) const {
        const Shape &x = in(0);
        if (p.transpose_input && x.size() != 2) fail("a transposed input must be 2-D, not " + shape_to_string(x));
        int a = axis(p.axis, x.size());
        Shape out(x.begin(), x.begin() + a);
        if (p.transpose_input) out = {x[1]};
        out.push_back(p.num_output);
        set_out(0, out);
        const int64_t k = p.transpose_input ? x[0] : product(x, a, x.size());
        layer_.weight_shapes = {p.transpose ? Shape{k, p.num_output} : Shape{p.num_output, k}};
        if (p.bias_term) layer_.weight_shapes.push_back({p.num_output});
    }

    void operator()(const SoftmaxParams &p) const {
        axis(p.axis, in(0).size());
        set_out(0, in(0));
    }

    void operator()(const ConcatParams &p) const {
        const Shape &first = in(0);
        int a = axis(p.axis, first.size());
        Shape out = first;
        for (size_t i = 1; i < layer_.inputs.size(); i++) {
            const Shape &s = in(i);
            bool same = s.size() == first.size();
            for (size_t d = 0; same && d < s.size(); d++) same = d == size_t(a) || s[d] == first[d];
            if (!same)
                fail("bottom '" + graph_.values[layer_.inputs[i]].blob_name + "' has shape " + shape_to_string(s) +
                     ", which does not match " + shape_to_string(first) + " outside the concat axis " +
                     std::to_string(a));
            out[a] += s[a];
        }
        set_out(0, out);
    }

    void operator()(const EltwiseParams &) const {
        for (size_t i = 1; i < layer_.inputs.size(); i++)
            if (in(i) != in(0))
                fail("bottom '" + graph_.values[layer_.inputs[i]].blob_name + "' has shape " + shape_to_string(in(i)) +
                     " but '" + graph_.values[layer_.inputs[0]].blob_name + "' has " + shape_to_string(in(0)));
        set_out(0, in(0));
    }

    void operator()(const SplitParams &) const {
        for (size_t i = 0; i < layer_.outputs.size(); i++) set_out(i, in(0));
    }

    void operator()(const FlattenParams &p) const {
        const Shape &x = in(0);
        int start = axis(p.axis, x.size());
        int end = axis(p.end_axis, x.size());
        if (end < start) fail("end_axis comes before axis");
        Shape out(x.begin(), x.begin() + start);
        out.push_back(product(x, start, end + 1));
        out.insert(out.end(), x.begin() + end + 1, x.end());
        set_out(0, out);
    }

    void operator()(const ReshapeParams &p) const {
        const Shape &x = in(0);
        const int rank = static_cast<int>(x.size());
        int start = p.axis < 0 ? p.axis + rank + 1 : p.axis;
        if (start < 0 || start > rank) fail("axis " + std::to_string(p.axis) + " out of range");
        int end = p.num_axes == -1 ? rank : start + p.num_axes;
        if (p.num_axes < -1 || end > rank) fail("num_axes " + std::to_string(p.num_axes) + " out of range");
        Shape out(x.begin(), x.begin() + start);
        int inferred = -1;
        for (size_t i = 0; i < p.shape.size(); i++) {
            int64_t d = p.shape[i];
            if (d == 0) {
                if (start + int(i) >= rank) fail("shape dim 0 copies an axis the input lacks");
                d = x[start + i];
            } else if (d == -1) {
                if (inferred >= 0) fail("more than one -1 in shape");
                inferred = static_cast<int>(out.size());
                d = 1;
            } else if (d < 0) {
                fail("shape has negative dim " + std::to_string(d));
            }
            out.push_back(d);
        }
        out.insert(out.end(), x.begin() + end, x.end());
        const int64_t total = element_count(x);
        int64_t known = 1;
        for (size_t i = 0; i < out.size(); i++)
            if (int(i) != inferred) {
                if (out[i] != 0 && known > kMaxElements / out[i])
                    fail("shape " + shape_to_string(out) + " is too large");
                known *= out[i];
            }
        if (inferred >= 0) {
            if (known == 0 || total % known)
                fail("cannot infer -1: " + std::to_string(total) + " elements do not divide by " +
                     std::to_string(known));
            out[inferred] = total / known;
        } else if (known != total) {
            fail("shape " + shape_to_string(out) + " has " + std::to_string(known) + " elements, the input " +
                 shape_to_string(x) + " has " + std::to_string(total));
        }
        set_out(0, out);
    }

    void operator()(const BatchNormParams &) const {
        if (in(0).size() < 2) fail("needs at least 2 axes");
        set_out(0, in(0));
        layer_.weight_shapes = {{in(0)[1]}, {in(0)[1]}, {1}};
    }

    void operator()(const ScaleParams &p) const {
        const Shape &x = in(0);
        int a = axis(p.axis, x.size());
        if (layer_.inputs.size() > 2) fail("has " + std::to_string(layer_.inputs.size()) + " bottoms; a Scale has 1 or 2");
        if (layer_.inputs.size() == 2) {
            // Caffe's two-bottom form: the second bottom is the scale, matching x's axes from
            // `axis` on (num_axes is not read); a bias is the layer's only blob.
            const Shape &s = in(1);
            if (a + s.size() > x.size() || !std::equal(s.begin(), s.end(), x.begin() + a))
                fail("the scale bottom '" + graph_.values[layer_.inputs[1]].blob_name + "' has shape " +
                     shape_to_string(s) + ", which is not the axes of " + shape_to_string(x) + " from axis " +
                     std::to_string(a));
            set_out(0, x);
            layer_.weight_shapes.clear();
            if (p.bias_term) layer_.weight_shapes.push_back(s);
            return;
        }
        int end = p.num_axes == -1 ? static_cast<int>(x.size()) : a + p.num_axes;
        if (p.num_axes < -1 || end > static_cast<int>(x.size()))
            fail("num_axes " + std::to_string(p.num_axes) + " out of range");
        Shape scale_shape(x.begin() + a, x.begin() + end);
        set_out(0, x);
        layer_.weight_shapes = {scale_shape};
        if (p.bias_term) layer_.weight_shapes.push_back(scale_shape);
    }

    void operator()(const PReLUParams &p) const {
        if (in(0).size() < 2 && !p.channel_shared) fail("needs at least 2 axes for a slope per channel");
        set_out(0, in(0));
        layer_.weight_shapes = {{p.channel_shared ? 1 : in(0)[1]}};
    }

    void operator()(const BiasParams &p) const {
        const Shape &x = in(0);
        const int a = axis(p.axis, x.size());
        const int end = p.num_axes == -1 ? static_cast<int>(x.size()) : a + p.num_axes;
        if (p.num_axes < -1 || end > static_cast<int>(x.size()))
            fail("num_axes " + std::to_string(p.num_axes) + " out of range");
        set_out(0, x);
        layer_.weight_shapes = {Shape(x.begin() + a, x.begin() + end)};
    }

    void operator()(const TransposeParams &p) const {
        const Shape &x = in(0);
        std::vector<bool> seen(x.size(), false);
        Shape out;
        if (p.perm.size() != x.size()) fail("perm has " + std::to_string(p.perm.size()) + " axes for an input of " +
                                            std::to_string(x.size()));
        for (int a : p.perm) {
            if (a < 0 || a >= int(x.size()) || seen[a]) fail("perm is not a permutation of the input's axes");
            seen[a] = true;
            out.push_back(x[a]);
        }
        set_out(0, out);
    }

    // Caffe's Crop: the axes from `axis` on take the second bottom's sizes, starting at the
    // offsets (one for all, or one each), which must keep the window inside the input.
    void operator()(const CropParams &p) const {
        const Shape &x = in(0);
        if (!p.from_reference) {
            if (p.starts.size() != x.size() || p.steps.size() != x.size() || p.sizes.size() != x.size())
                fail("the window needs a start, a step and a size per axis");
            for (size_t d = 0; d < x.size(); d++) {
                const int64_t last = p.starts[d] + (p.sizes[d] - 1) * p.steps[d];
                if (p.sizes[d] < 1 || p.steps[d] == 0 || p.starts[d] < 0 || p.starts[d] >= x[d] || last < 0 ||
                    last >= x[d])
                    fail("the window along axis " + std::to_string(d) + " leaves the input " + shape_to_string(x));
            }
            set_out(0, Shape(p.sizes.begin(), p.sizes.end()));
            return;
        }
        if (layer_.inputs.size() != 2) fail("needs two bottoms: the data and the blob whose shape it takes");
        const Shape &reference = in(1);
        if (reference.size() != x.size())
            fail("bottoms of shapes " + shape_to_string(x) + " and " + shape_to_string(reference) +
                 " differ in their number of axes");
        const int a = axis(p.axis, x.size());
        const size_t cropped = x.size() - a;
        if (p.offsets.size() > 1 && p.offsets.size() != cropped)
            fail(std::to_string(p.offsets.size()) + " offsets for " + std::to_string(cropped) + " cropped axes");
        CropParams window = p;
        window.starts.assign(x.size(), 0), window.steps.assign(x.size(), 1), window.sizes = x;
        for (size_t d = a; d < x.size(); d++) {
            const int64_t offset = p.offsets.empty() ? 0 : p.offsets.size() == 1 ? p.offsets[0] : p.offsets[d - a];
            if (offset + reference[d] > x[d])
                fail("axis " + std::to_string(d) + ": offset " + std::to_string(offset) + " + size " +
                     std::to_string(reference[d]) + " is past the input's " + std::to_string(x[d]));
            window.starts[d] = offset, window.sizes[d] = reference[d];
        }
        layer_.params = window;
        set_out(0, window.sizes);
    }

    void operator()(const SliceParams &p) const {
        const Shape &x = in(0);
        const int a = axis(p.axis, x.size());
        const int64_t pieces = int64_t(layer_.outputs.size());
        std::vector<int64_t> bounds{0};
        if (p.points.empty()) {
            if (x[a] % pieces != 0)
                fail("axis " + std::to_string(a) + " of " + std::to_string(x[a]) + " does not split into " +
                     std::to_string(pieces) + " equal pieces");
            for (int64_t i = 1; i < pieces; i++) bounds.push_back(i * (x[a] / pieces));
        } else {
            if (int64_t(p.points.size()) != pieces - 1)
                fail(std::to_string(p.points.size()) + " slice points for " + std::to_string(pieces) + " tops");
            bounds.insert(bounds.end(), p.points.begin(), p.points.end());
        }
        bounds.push_back(x[a]);
        for (int64_t i = 0; i < pieces; i++) {
            if (bounds[i + 1] <= bounds[i])
                fail("slice points must rise strictly inside axis " + std::to_string(a) + " of " +
                     std::to_string(x[a]));
            Shape out = x;
            out[a] = bounds[i + 1] - bounds[i];
            set_out(i, out);
        }
    }

    void operator()(const ResizeParams &p) const {
        need_rank(0, 4);
        if (p.out_h < 1 || p.out_w < 1) fail("the output plane is empty");
        set_out(0, {in(0)[0], in(0)[1], p.out_h, p.out_w});
    }

    void operator()(const ConstantParams &p) const {
        layer_.weight_shapes = {p.shape};
        set_out(0, p.shape);
    }

    void operator()(const ExpandParams &p) const {
        const Shape &x = in(0);
        if (x.size() > p.shape.size())
            fail("cannot broadcast " + shape_to_string(x) + " to the fewer axes of " + shape_to_string(p.shape));
        for (size_t d = 0; d < x.size(); d++) {
            const int64_t target = p.shape[p.shape.size() - x.size() + d];
            if (x[d] != 1 && x[d] != target)
                fail("cannot broadcast " + shape_to_string(x) + " to " + shape_to_string(p.shape));
        }
        set_out(0, p.shape);
    }

  private:
    Graph &graph_;
    Layer &layer_;
};

}  // namespace

int canonical_axis(int axis, size_t rank, const std::string &context) {
    const int r = static_cast<int>(rank);
    if (axis < -r || axis >= r)
        throw CompileError(context + ": axis " + std::to_string(axis) + " is out of range for " + std::to_string(rank) +
                           " axes");
    return axis < 0 ? axis + r : axis;
}

void infer_shapes(Graph &graph) {
    for (int id : graph.inputs) {
        const Value &v = graph.values[id];
        int64_t count = 1;
        for (int64_t d : v.shape) {
            if (d <= 0 || d > kMaxElements)
                throw CompileError("input '" + v.blob_name + "' has shape " + shape_to_string(v.shape) +
                                   "; every dimension must be 1.." + std::to_string(kMaxElements));
            if (count > kMaxElements / d)
                throw CompileError("input '" + v.blob_name + "' of shape " + shape_to_string(v.shape) +
                                   " has more than " + std::to_string(kMaxElements) + " elements");
            count *= d;
        }
    }
    infer_shapes(graph, 0);
}

void infer_shapes(Graph &graph, size_t first_layer) {
    for (size_t i = first_layer; i < graph.layers.size(); i++)
        std::visit(ShapeInference(graph, graph.layers[i]), graph.layers[i].params);
}

}  // namespace cortado
