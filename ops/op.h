// An op descriptor: the shape (what is computed) and the choice (how), sent to the generator as
// one text through the codec in field_text.h. The shape alone, with the target, is the op
// signature; shape and choice together are the kernel signature (compiler/kernel_plan.h).
#pragma once

#include <string>

#include "ops/choice.h"
#include "ops/field_text.h"

namespace cortado::ops {

template <typename ShapeT>
struct Op {
    using Shape = ShapeT;
    Shape shape;
    Choice choice;
};

// The generator parameter that carries a descriptor, and its text: "SHAPE|CHOICE".
inline constexpr const char *kDescriptorParam = "op";

inline std::string descriptor_text(const std::string &shape_text, const Choice &choice) {
    return shape_text + "|" + fields_text(choice);
}

template <typename Shape>
std::string descriptor_text(const Op<Shape> &op) {
    return descriptor_text(fields_text(op.shape), op.choice);
}

template <typename OpT>
OpT parse_descriptor(const std::string &text) {
    const size_t bar = text.find('|');
    if (bar == std::string::npos) throw std::invalid_argument("descriptor '" + text + "' has no choice part");
    OpT op;
    op.shape = parse_fields<typename OpT::Shape>(text.substr(0, bar));
    op.choice = parse_fields<Choice>(text.substr(bar + 1));
    return op;
}

}  // namespace cortado::ops
