#include "frontend/onnx_constants.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <set>

namespace cortado {

int64_t OnnxTensor::count() const {
    int64_t n = 1;
    for (int64_t d : dims) n *= d;
    return n;
}

namespace {

const onnx::AttributeProto *attribute(const onnx::NodeProto &node, const std::string &name) {
    for (const onnx::AttributeProto &a : node.attribute())
        if (a.name() == name) return &a;
    return nullptr;
}
int64_t int_attribute(const onnx::NodeProto &node, const std::string &name, int64_t fallback) {
    const auto *a = attribute(node, name);
    return a ? a->i() : fallback;
}
std::optional<std::vector<int64_t>> ints_attribute(const onnx::NodeProto &node, const std::string &name) {
    const auto *a = attribute(node, name);
    if (!a) return std::nullopt;
    return std::vector<int64_t>(a->ints().begin(), a->ints().end());
}

const OnnxTensor &input(const std::vector<const OnnxTensor *> &inputs, size_t i, const char *what) {
    if (i >= inputs.size() || !inputs[i]) throw FoldError(std::string(what) + " is missing");
    return *inputs[i];
}

// The values of an integer tensor (axes, shapes, indices), or of a float one that holds whole
// numbers only.
std::vector<int64_t> whole_numbers(const OnnxTensor &t, const char *what) {
    if (t.integer) return t.integers;
    std::vector<int64_t> out;
    for (float v : t.floats) {
        if (!std::isfinite(v) || v != std::floor(v) || std::fabs(v) > 9.2e18f)
            throw FoldError(std::string(what) + " holds " + std::to_string(v) + ", not a whole number");
        out.push_back(int64_t(v));
    }
    return out;
}

int64_t normalised_axis(int64_t axis, size_t rank, const char *what) {
    const int64_t r = int64_t(rank);
    if (axis < -r || axis >= r)
        throw FoldError(std::string(what) + " " + std::to_string(axis) + " is outside a rank-" + std::to_string(rank) +
                        " tensor");
    return axis < 0 ? axis + r : axis;
}

void check_size(const Shape &dims) {
    int64_t n = 1;
    for (int64_t d : dims) {
        if (d < 0) throw FoldError("a dimension of " + std::to_string(d));
        if (d > 0 && n > kMaxFoldedElements / d)
            throw FoldError("the result of shape " + shape_to_string(dims) + " is too large to evaluate at import");
        n *= d;
    }
    if (n > kMaxFoldedElements)
        throw FoldError("the result of shape " + shape_to_string(dims) + " is too large to evaluate at import");
}

// A tensor of `dims` whose element i is source element index(i), of either kind.
OnnxTensor gather_elements(const OnnxTensor &source, const Shape &dims, const std::function<int64_t(int64_t)> &index) {
    check_size(dims);
    OnnxTensor out;
    out.dims = dims;
    out.integer = source.integer;
    const int64_t n = out.count();
    if (source.integer) {
        out.integers.resize(size_t(n));
        for (int64_t i = 0; i < n; i++) out.integers[size_t(i)] = source.integers[size_t(index(i))];
    } else {
        out.floats.resize(size_t(n));
        for (int64_t i = 0; i < n; i++) out.floats[size_t(i)] = source.floats[size_t(index(i))];
    }
    return out;
}

// numpy's broadcast of two shapes.
Shape broadcast_shape(const Shape &a, const Shape &b) {
    Shape out(std::max(a.size(), b.size()), 1);
    for (size_t i = 0; i < out.size(); i++) {
        const int64_t da = i < out.size() - a.size() ? 1 : a[i - (out.size() - a.size())];
        const int64_t db = i < out.size() - b.size() ? 1 : b[i - (out.size() - b.size())];
        if (da != db && da != 1 && db != 1)
            throw FoldError("shapes " + shape_to_string(a) + " and " + shape_to_string(b) + " do not broadcast");
        out[i] = da == 1 ? db : da;
    }
    return out;
}

// The element of a tensor of `dims` that element `i` of a broadcast result of `out` reads.
int64_t broadcast_index(int64_t i, const Shape &out, const Shape &dims) {
    const std::vector<int64_t> out_strides = row_major_strides(out), strides = row_major_strides(dims);
    int64_t index = 0;
    const size_t offset = out.size() - dims.size();
    for (size_t axis = 0; axis < out.size(); axis++) {
        const int64_t coordinate = (i / out_strides[axis]) % out[axis];
        if (axis >= offset && dims[axis - offset] != 1) index += coordinate * strides[axis - offset];
    }
    return index;
}

OnnxTensor arithmetic(const std::string &op, const OnnxTensor &a, const OnnxTensor &b) {
    if (a.integer != b.integer) throw FoldError("its inputs are of different types");
    const Shape dims = broadcast_shape(a.dims, b.dims);
    check_size(dims);
    OnnxTensor out;
    out.dims = dims;
    out.integer = a.integer;
    const int64_t n = out.count();
    for (int64_t i = 0; i < n; i++) {
        const int64_t ia = broadcast_index(i, dims, a.dims), ib = broadcast_index(i, dims, b.dims);
        if (a.integer) {
            const int64_t x = a.integers[size_t(ia)], y = b.integers[size_t(ib)];
            if (op == "Div" && y == 0) throw FoldError("an integer division by zero");
            out.integers.push_back(op == "Add" ? x + y : op == "Sub" ? x - y : op == "Mul" ? x * y : x / y);
        } else {
            const float x = a.floats[size_t(ia)], y = b.floats[size_t(ib)];
            out.floats.push_back(op == "Add" ? x + y : op == "Sub" ? x - y : op == "Mul" ? x * y : x / y);
        }
    }
    return out;
}

// Unsqueeze and Squeeze take their axes from an attribute before opset 13 and an input from 13.
std::optional<std::vector<int64_t>> axes_of(const onnx::NodeProto &node, int64_t opset,
                                            const std::vector<const OnnxTensor *> &inputs) {
    if (opset < 13) return ints_attribute(node, "axes");
    if (inputs.size() > 1 && inputs[1]) return whole_numbers(*inputs[1], "axes");
    return std::nullopt;
}

OnnxTensor reshape(const OnnxTensor &data, const std::vector<int64_t> &target, bool allow_zero) {
    Shape dims;
    int inferred = -1;
    int64_t known = 1;
    for (size_t i = 0; i < target.size(); i++) {
        int64_t d = target[i];
        if (d == 0 && !allow_zero) {
            if (i >= data.dims.size()) throw FoldError("a 0 in the shape beyond the data's rank");
            d = data.dims[i];
        }
        if (d == -1) {
            if (inferred >= 0) throw FoldError("two -1 in the shape");
            inferred = int(i);
            d = 1;
        } else if (d < 0) {
            throw FoldError("a dimension of " + std::to_string(d) + " in the shape");
        } else {
            known *= d;
        }
        dims.push_back(d);
    }
    if (inferred >= 0) {
        if (known == 0 || data.count() % known != 0) throw FoldError("the shape does not divide the data");
        dims[size_t(inferred)] = data.count() / known;
    }
    OnnxTensor out = data;
    out.dims = dims;
    if (out.count() != data.count())
        throw FoldError("shape " + shape_to_string(dims) + " for " + std::to_string(data.count()) + " elements");
    return out;
}

}  // namespace

SliceWindow slice_window(int64_t size, int64_t start, int64_t end, int64_t step) {
    if (step == 0) throw FoldError("a step of 0");
    if (step == std::numeric_limits<int64_t>::min()) throw FoldError("a step of -2^63");
    // ONNX's clamping: negative positions count from the end; with a positive step the start and
    // end clamp to [0, size], with a negative one the start to [0, size - 1] and the end to
    // [-1, size - 1].
    const auto from_end = [&](int64_t v) { return v < 0 ? (v < -size ? -1 : v + size) : v; };
    const int64_t begin = step > 0 ? std::clamp<int64_t>(from_end(start), 0, size)
                                   : std::clamp<int64_t>(from_end(start), 0, size - 1);
    const int64_t stop = step > 0 ? std::clamp<int64_t>(from_end(end), 0, size)
                                  : std::clamp<int64_t>(from_end(end), -1, size - 1);
    // Differences of clamped positions cannot overflow; the step may be huge.
    const int64_t count = step > 0 ? (stop > begin ? (stop - begin - 1) / step + 1 : 0)
                                   : (begin > stop ? (begin - stop - 1) / -step + 1 : 0);
    return SliceWindow{begin, count};
}

namespace {

OnnxTensor slice(const onnx::NodeProto &node, int64_t opset, const std::vector<const OnnxTensor *> &inputs) {
    const OnnxTensor &data = input(inputs, 0, "the data");
    std::vector<int64_t> starts, ends, axes, steps;
    if (opset < 10) {
        starts = ints_attribute(node, "starts").value_or(std::vector<int64_t>{});
        ends = ints_attribute(node, "ends").value_or(std::vector<int64_t>{});
        axes = ints_attribute(node, "axes").value_or(std::vector<int64_t>{});
    } else {
        starts = whole_numbers(input(inputs, 1, "starts"), "starts");
        ends = whole_numbers(input(inputs, 2, "ends"), "ends");
        if (inputs.size() > 3 && inputs[3]) axes = whole_numbers(*inputs[3], "axes");
        if (inputs.size() > 4 && inputs[4]) steps = whole_numbers(*inputs[4], "steps");
    }
    if (axes.empty())
        for (size_t i = 0; i < starts.size(); i++) axes.push_back(int64_t(i));
    if (steps.empty()) steps.assign(starts.size(), 1);
    if (ends.size() != starts.size() || axes.size() != starts.size() || steps.size() != starts.size())
        throw FoldError("starts, ends, axes and steps differ in length");
    const size_t rank = data.dims.size();
    std::vector<int64_t> first(rank, 0), step(rank, 1);
    Shape dims = data.dims;
    std::set<int64_t> seen;
    for (size_t i = 0; i < starts.size(); i++) {
        const int64_t axis = normalised_axis(axes[i], rank, "axis");
        if (!seen.insert(axis).second) throw FoldError("an axis sliced twice");
        const SliceWindow window = slice_window(data.dims[size_t(axis)], starts[i], ends[i], steps[i]);
        first[size_t(axis)] = window.start;
        step[size_t(axis)] = steps[i];
        dims[size_t(axis)] = window.count;
    }
    const std::vector<int64_t> in_strides = row_major_strides(data.dims), out_strides = row_major_strides(dims);
    return gather_elements(data, dims, [&](int64_t i) {
        int64_t index = 0;
        for (size_t a = 0; a < rank; a++) index += (first[a] + ((i / out_strides[a]) % dims[a]) * step[a]) * in_strides[a];
        return index;
    });
}

OnnxTensor cast(const onnx::NodeProto &node, const OnnxTensor &data) {
    const onnx::AttributeProto *to = attribute(node, "to");
    if (!to) throw FoldError("`to` is missing");
    // Cast-1 names the type as a string ("FLOAT"); later versions give the enum.
    int64_t type = to->i();
    if (to->type() == onnx::AttributeProto::STRING) {
        onnx::TensorProto::DataType parsed;
        if (!onnx::TensorProto::DataType_Parse(to->s(), &parsed)) throw FoldError("`to` names no type: " + to->s());
        type = parsed;
    }
    OnnxTensor out;
    out.dims = data.dims;
    switch (type) {
    case onnx::TensorProto::FLOAT:
    case onnx::TensorProto::DOUBLE:
        if (data.integer) out.floats.assign(data.integers.begin(), data.integers.end());
        else out.floats = data.floats;
        return out;
    case onnx::TensorProto::INT64:
    case onnx::TensorProto::INT32:
    case onnx::TensorProto::INT16:
    case onnx::TensorProto::INT8:
    case onnx::TensorProto::UINT8:
    case onnx::TensorProto::BOOL:
        out.integer = true;
        if (data.integer) {
            out.integers = data.integers;
        } else {
            for (float v : data.floats) {
                if (!std::isfinite(v) || std::fabs(v) > 9.2e18f) throw FoldError("casts a non-finite or huge value");
                out.integers.push_back(int64_t(std::trunc(v)));  // toward zero, as C and onnxruntime cast
            }
        }
        if (type == onnx::TensorProto::BOOL)
            for (int64_t &v : out.integers) v = v != 0;
        return out;
    default:
        throw FoldError("a cast to element type " + std::to_string(type) + ", which cortado does not compute with");
    }
}

}  // namespace

bool foldable_op(const std::string &op) {
    static const std::set<std::string> ops = {"Identity", "Shape",     "Size",  "Gather",          "Unsqueeze",
                                              "Squeeze",  "Concat",    "Cast",  "ConstantOfShape", "Range",
                                              "Slice",    "Reshape",   "Flatten", "Expand",        "Transpose",
                                              "Add",      "Sub",       "Mul",   "Div",             "Neg",
                                              "Dropout"};
    return ops.count(op) > 0;
}

OnnxTensor fold_constant(const onnx::NodeProto &node, int64_t opset, const std::vector<const OnnxTensor *> &inputs) {
    const std::string &op = node.op_type();
    const auto integers = [](Shape dims, std::vector<int64_t> values) {
        OnnxTensor t;
        t.dims = std::move(dims);
        t.integers = std::move(values);
        t.integer = true;
        return t;
    };
    if (op == "Identity" || op == "Dropout") return input(inputs, 0, "the input");
    if (op == "Shape") {
        const Shape &dims = input(inputs, 0, "the input").dims;
        // From opset 15, start and end slice the shape, as Python slices a list.
        const int64_t rank = int64_t(dims.size());
        int64_t start = int_attribute(node, "start", 0), end = int_attribute(node, "end", rank);
        start = std::clamp<int64_t>(start < 0 ? start + rank : start, 0, rank);
        end = std::clamp<int64_t>(end < 0 ? end + rank : end, 0, rank);
        std::vector<int64_t> values(dims.begin() + start, dims.begin() + std::max(start, end));
        const int64_t count = int64_t(values.size());
        return integers({count}, values);
    }
    if (op == "Size") return integers({}, {input(inputs, 0, "the input").count()});
    if (op == "Neg") {
        OnnxTensor out = input(inputs, 0, "the input");
        for (int64_t &v : out.integers) v = -v;
        for (float &v : out.floats) v = -v;
        return out;
    }
    if (op == "Add" || op == "Sub" || op == "Mul" || op == "Div")
        return arithmetic(op, input(inputs, 0, "A"), input(inputs, 1, "B"));
    if (op == "Cast") return cast(node, input(inputs, 0, "the input"));
    if (op == "Gather") {
        const OnnxTensor &data = input(inputs, 0, "the data");
        const OnnxTensor &indices_tensor = input(inputs, 1, "the indices");
        const std::vector<int64_t> indices = whole_numbers(indices_tensor, "the indices");
        const int64_t axis = normalised_axis(int_attribute(node, "axis", 0), data.dims.size(), "axis");
        if (data.dims.empty()) throw FoldError("gathers from a scalar");
        const int64_t size = data.dims[size_t(axis)];
        Shape dims(data.dims.begin(), data.dims.begin() + axis);
        dims.insert(dims.end(), indices_tensor.dims.begin(), indices_tensor.dims.end());
        dims.insert(dims.end(), data.dims.begin() + axis + 1, data.dims.end());
        int64_t inner = 1;
        for (size_t a = size_t(axis) + 1; a < data.dims.size(); a++) inner *= data.dims[a];
        const int64_t picked = int64_t(indices.size());
        for (int64_t index : indices)
            if (index < -size || index >= size)
                throw FoldError("index " + std::to_string(index) + " outside an axis of " + std::to_string(size));
        return gather_elements(data, dims, [&](int64_t i) {
            const int64_t within = i % inner, rest = i / inner;
            const int64_t which = rest % picked, outer = rest / picked;
            int64_t index = indices[size_t(which)];
            if (index < 0) index += size;
            return (outer * size + index) * inner + within;
        });
    }
    if (op == "Unsqueeze") {
        const OnnxTensor &data = input(inputs, 0, "the data");
        const std::optional<std::vector<int64_t>> axes = axes_of(node, opset, inputs);
        if (!axes || axes->empty()) throw FoldError("axes are missing");
        const size_t rank = data.dims.size() + axes->size();
        std::set<int64_t> at;
        for (int64_t a : *axes)
            if (!at.insert(normalised_axis(a, rank, "axis")).second) throw FoldError("an axis given twice");
        Shape dims;
        size_t next = 0;
        for (size_t i = 0; i < rank; i++) dims.push_back(at.count(int64_t(i)) ? 1 : data.dims[next++]);
        OnnxTensor out = data;
        out.dims = dims;
        return out;
    }
    if (op == "Squeeze") {
        const OnnxTensor &data = input(inputs, 0, "the data");
        const std::optional<std::vector<int64_t>> axes = axes_of(node, opset, inputs);
        std::set<int64_t> at;
        if (axes)
            for (int64_t a : *axes) {
                const int64_t axis = normalised_axis(a, data.dims.size(), "axis");
                if (data.dims[size_t(axis)] != 1) throw FoldError("squeezes an axis of size " + std::to_string(data.dims[size_t(axis)]));
                at.insert(axis);
            }
        Shape dims;
        for (size_t i = 0; i < data.dims.size(); i++)
            if (axes ? !at.count(int64_t(i)) : data.dims[i] != 1) dims.push_back(data.dims[i]);
        OnnxTensor out = data;
        out.dims = dims;
        return out;
    }
    if (op == "Concat") {
        if (inputs.empty()) throw FoldError("no inputs");
        const OnnxTensor &first = input(inputs, 0, "input 0");
        const int64_t axis = normalised_axis(int_attribute(node, "axis", 1), first.dims.size(), "axis");
        Shape dims = first.dims;
        dims[size_t(axis)] = 0;
        for (size_t i = 0; i < inputs.size(); i++) {
            const OnnxTensor &t = input(inputs, i, "an input");
            if (t.integer != first.integer || t.dims.size() != first.dims.size())
                throw FoldError("its inputs differ in type or rank");
            for (size_t a = 0; a < dims.size(); a++)
                if (int64_t(a) != axis && t.dims[a] != first.dims[a]) throw FoldError("its inputs' shapes differ");
            dims[size_t(axis)] += t.dims[size_t(axis)];
        }
        check_size(dims);
        OnnxTensor out;
        out.dims = dims;
        out.integer = first.integer;
        int64_t outer = 1;
        for (int64_t a = 0; a < axis; a++) outer *= dims[size_t(a)];
        for (int64_t o = 0; o < outer; o++)
            for (const OnnxTensor *t : inputs) {
                const int64_t block = t->count() / std::max<int64_t>(outer, 1);
                if (t->integer)
                    out.integers.insert(out.integers.end(), t->integers.begin() + o * block,
                                        t->integers.begin() + (o + 1) * block);
                else
                    out.floats.insert(out.floats.end(), t->floats.begin() + o * block, t->floats.begin() + (o + 1) * block);
            }
        return out;
    }
    if (op == "ConstantOfShape") {
        Shape dims = whole_numbers(input(inputs, 0, "the shape"), "the shape");
        check_size(dims);
        OnnxTensor out;
        out.dims = dims;
        float fill = 0.0f;
        int64_t fill_integer = 0;
        if (const onnx::AttributeProto *value = attribute(node, "value")) {
            const onnx::TensorProto &t = value->t();
            if (t.data_type() == onnx::TensorProto::FLOAT) {
                if (t.float_data_size()) fill = t.float_data(0);
                else if (t.raw_data().size() >= sizeof fill) std::memcpy(&fill, t.raw_data().data(), sizeof fill);
                else throw FoldError("an empty value");
            } else if (t.data_type() == onnx::TensorProto::INT64) {
                out.integer = true;
                if (t.int64_data_size()) fill_integer = t.int64_data(0);
                else if (t.raw_data().size() >= sizeof fill_integer)
                    std::memcpy(&fill_integer, t.raw_data().data(), sizeof fill_integer);
                else throw FoldError("an empty value");
            } else {
                throw FoldError("a value of element type " + std::to_string(t.data_type()));
            }
        }
        if (out.integer) out.integers.assign(size_t(out.count()), fill_integer);
        else out.floats.assign(size_t(out.count()), fill);
        return out;
    }
    if (op == "Range") {
        const OnnxTensor &start = input(inputs, 0, "start"), &limit = input(inputs, 1, "limit"),
                         &delta = input(inputs, 2, "delta");
        if (start.count() != 1 || limit.count() != 1 || delta.count() != 1) throw FoldError("start, limit and delta must be scalars");
        OnnxTensor out;
        out.integer = start.integer;
        if (start.integer) {
            // In 128 bits: limit - start and the elements can pass int64's range.
            const __int128 s = start.integers[0], l = limit.integers.at(0), d = delta.integers.at(0);
            if (d == 0) throw FoldError("a delta of 0");
            const __int128 count = std::max<__int128>(0, (l - s + d + (d > 0 ? -1 : 1)) / d);
            if (count > kMaxFoldedElements) throw FoldError("a range of more than " + std::to_string(kMaxFoldedElements) + " elements");
            const int64_t n = int64_t(count);
            check_size({n});
            for (int64_t i = 0; i < n; i++) {
                const __int128 v = s + i * d;
                if (v > std::numeric_limits<int64_t>::max() || v < std::numeric_limits<int64_t>::min())
                    throw FoldError("a range element beyond 64 bits");
                out.integers.push_back(int64_t(v));
            }
            out.dims = {n};
        } else {
            const double s = start.floats[0], l = limit.floats.at(0), d = delta.floats.at(0);
            if (d == 0 || !std::isfinite(s) || !std::isfinite(l) || !std::isfinite(d)) throw FoldError("a delta of 0 or a non-finite bound");
            const double n = std::max(0.0, std::ceil((l - s) / d));
            check_size({int64_t(std::min(n, 1e18))});
            for (int64_t i = 0; i < int64_t(n); i++) out.floats.push_back(float(s + double(i) * d));
            out.dims = {int64_t(n)};
        }
        return out;
    }
    if (op == "Slice") return slice(node, opset, inputs);
    if (op == "Reshape") {
        const OnnxTensor &data = input(inputs, 0, "the data");
        const std::vector<int64_t> target = opset < 5 ? ints_attribute(node, "shape").value_or(std::vector<int64_t>{})
                                                      : whole_numbers(input(inputs, 1, "the shape"), "the shape");
        return reshape(data, target, int_attribute(node, "allowzero", 0) != 0);
    }
    if (op == "Flatten") {
        const OnnxTensor &data = input(inputs, 0, "the data");
        const int64_t rank = int64_t(data.dims.size());
        int64_t axis = int_attribute(node, "axis", 1);
        if (axis < 0) axis += rank;
        if (axis < 0 || axis > rank) throw FoldError("axis outside the input's rank");
        int64_t outer = 1;
        for (int64_t a = 0; a < axis; a++) outer *= data.dims[size_t(a)];
        return reshape(data, {outer, -1}, false);
    }
    if (op == "Expand") {
        const OnnxTensor &data = input(inputs, 0, "the data");
        const Shape dims = broadcast_shape(data.dims, whole_numbers(input(inputs, 1, "the shape"), "the shape"));
        return gather_elements(data, dims, [&](int64_t i) { return broadcast_index(i, dims, data.dims); });
    }
    if (op == "Transpose") {
        const OnnxTensor &data = input(inputs, 0, "the data");
        const size_t rank = data.dims.size();
        std::vector<int64_t> perm = ints_attribute(node, "perm").value_or(std::vector<int64_t>{});
        if (perm.empty())
            for (size_t i = rank; i-- > 0;) perm.push_back(int64_t(i));
        std::vector<int64_t> sorted = perm;
        std::sort(sorted.begin(), sorted.end());
        for (size_t i = 0; i < sorted.size(); i++)
            if (sorted.size() != rank || sorted[i] != int64_t(i)) throw FoldError("perm is not a permutation of the axes");
        Shape dims;
        for (int64_t p : perm) dims.push_back(data.dims[size_t(p)]);
        const std::vector<int64_t> in_strides = row_major_strides(data.dims), out_strides = row_major_strides(dims);
        return gather_elements(data, dims, [&](int64_t i) {
            int64_t index = 0;
            for (size_t a = 0; a < rank; a++) index += ((i / out_strides[a]) % dims[a]) * in_strides[size_t(perm[a])];
            return index;
        });
    }
    throw FoldError("cortado does not evaluate " + op + " at import");
}

}  // namespace cortado
