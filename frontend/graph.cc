#include "frontend/graph.h"

#include <limits>

#include "frontend/compile_error.h"

namespace cortado {

std::vector<int64_t> row_major_strides(const Shape &shape) {
    std::vector<int64_t> strides(shape.size(), 1);
    for (size_t d = shape.size(); d-- > 1;) strides[d - 1] = strides[d] * shape[d];
    return strides;
}

int64_t element_count(const Shape &shape) {
    int64_t count = 1;
    for (int64_t d : shape) {
        if (d < 0) throw CompileError("negative dimension in shape " + shape_to_string(shape));
        if (d != 0 && count > std::numeric_limits<int64_t>::max() / d)
            throw CompileError("element count of shape " + shape_to_string(shape) + " overflows");
        count *= d;
    }
    return count;
}

std::string shape_to_string(const Shape &shape) {
    std::string text;
    for (size_t i = 0; i < shape.size(); i++) {
        if (i) text += "x";
        text += std::to_string(shape[i]);
    }
    return text.empty() ? "scalar" : text;
}

std::string SourceLocation::to_string() const {
    if (file.empty()) return "<unknown>";
    return line > 0 ? file + ":" + std::to_string(line) : file;
}

int Graph::add_value(const std::string &blob_name, Shape shape) {
    values.push_back(Value{blob_name, std::move(shape)});
    return static_cast<int>(values.size()) - 1;
}

void Graph::drop_layers(const std::vector<bool> &gone) {
    std::vector<Layer> kept;
    for (size_t i = 0; i < layers.size(); i++)
        if (!gone[i]) kept.push_back(std::move(layers[i]));
    layers = std::move(kept);
}

std::vector<bool> Graph::consumed() const {
    std::vector<bool> used(values.size(), false);
    for (const Layer &layer : layers)
        for (int v : layer.inputs) used[v] = true;
    return used;
}

}  // namespace cortado
