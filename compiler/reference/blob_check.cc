#include "compiler/reference/blob_check.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <random>

#include "compiler/network_weights.h"
#include "compiler/reference/reference_interpreter.h"

namespace cortado {
namespace {

struct Capture {
    const NetworkPlan *plan;
    const std::vector<reference::Tensor> *expected;
    int call = 0;  // 0: the input; i + 1: step i
    BlobCheck result;
};

// A blob fails beyond the tolerance in relative L2 and beyond 1e-6 RMS: values near 0 (the log of
// a sum just above 1, say) carry float rounding that no relative bound holds.
void keep_worst(BlobCheck &result, double error, const std::string &blob,
                double rms_error = std::numeric_limits<double>::infinity()) {
    if (!(error <= result.worst_error)) {  // NaN-safe: a NaN error always becomes the worst
        result.worst_error = error;
        result.worst_blob = blob;
    }
    if (!(error <= result.tolerance) && !(rms_error <= 1e-6) && result.first_failing_blob.empty()) {
        result.first_failing_blob = blob;
        result.first_failing_error = error;
    }
}

void compare_blob(void *user, const char *blob, int, const int64_t *, const float *data) {
    auto *c = static_cast<Capture *>(user);
    const int tensor = c->call == 0 ? c->plan->input_tensor : c->plan->steps[c->call - 1].output_tensor;
    c->call++;
    const int value = c->plan->tensors[tensor].value;
    if (size_t(value) >= c->expected->size()) return;  // a value fusion made: the unfused graph has none
    c->result.blobs_checked++;
    const reference::Tensor &expected = (*c->expected)[value];
    if (std::all_of(expected.data.begin(), expected.data.end(), [](double v) { return v == 0.0; }))
        c->result.all_zero_blobs++;
    const reference::L2Errors errors = reference::l2_errors(data, expected);
    keep_worst(c->result, errors.relative, blob, errors.rms);
}

// "" when `actual` holds a NaN exactly where the reference does, the same infinity where it
// holds one, and finite values elsewhere within `tolerance` relative L2 or within 1e-6 RMS (an
// infinity can leave a few finite elements whose values cancel to near 0, where float rounding
// alone exceeds any relative bound); otherwise what differs, with the first few elements.
std::string compare_non_finite(const std::vector<float> &actual, const std::vector<double> &expected,
                               double tolerance) {
    auto describe = [](double v) {
        return std::isnan(v) ? std::string("NaN") : std::isinf(v) ? (v > 0 ? "+inf" : "-inf") : std::to_string(v);
    };
    std::string report;
    int wrong_kind = 0;
    size_t finite_count = 0;
    double diff_squared = 0.0, expected_squared = 0.0;
    for (size_t i = 0; i < expected.size(); i++) {
        const double a = actual[i], e = expected[i];
        const bool same_kind = std::isnan(e) ? std::isnan(a) : std::isinf(e) ? a == e : std::isfinite(a);
        if (!same_kind) {
            if (wrong_kind++ < 5)
                report += "  element " + std::to_string(i) + ": " + describe(a) + ", reference " + describe(e) + "\n";
        } else if (std::isfinite(e)) {
            finite_count++;
            diff_squared += (a - e) * (a - e);
            expected_squared += e * e;
        }
    }
    if (wrong_kind > 0)
        report = std::to_string(wrong_kind) + " of " + std::to_string(expected.size()) +
                 " elements differ in kind from the reference:\n" + report;
    if (diff_squared > tolerance * tolerance * expected_squared && diff_squared > 1e-12 * finite_count)
        report += "finite elements: relative L2 error " + std::to_string(std::sqrt(diff_squared / expected_squared)) +
                  ", RMS error " + std::to_string(std::sqrt(diff_squared / finite_count)) + "\n";
    return report;
}

// `shape`'s worth of uniform(-1, 1) values drawn from `random`: the checks' inputs.
std::vector<float> uniform_input(const Shape &shape, std::mt19937_64 &random) {
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    std::vector<float> input(static_cast<size_t>(element_count(shape)));
    for (float &v : input) v = uniform(random);
    return input;
}

// The values the reference is anchored on (reference::run_graph), as the network gives them: by
// value id.
struct Anchors {
    const NetworkPlan *plan;
    std::map<int, reference::Tensor> values;  // those wanted, filled as the network reports them
    int call = 0;                             // 0: the input; i + 1: step i
};

void capture_anchor(void *user, const char *, int rank, const int64_t *shape, const float *data) {
    auto *c = static_cast<Anchors *>(user);
    const int tensor = c->call == 0 ? c->plan->input_tensor : c->plan->steps[c->call - 1].output_tensor;
    c->call++;
    const auto it = c->values.find(c->plan->tensors[tensor].value);
    if (it == c->values.end()) return;
    it->second.shape.assign(shape, shape + rank);
    it->second.data.assign(data, data + element_count(it->second.shape));
}

}  // namespace

std::vector<reference::Tensor> reference_values(const Graph &unfused, const NetworkPlan &plan, LoadedNetwork &net,
                                                const reference::WeightMap &weights, const std::vector<float> &input) {
    const Shape &in_shape = unfused.values[unfused.inputs[0]].shape;
    const reference::Tensor in{in_shape, std::vector<double>(input.begin(), input.end())};
    Anchors captured{&plan, {}, 0};
    for (const Layer &layer : unfused.layers) {
        if (const auto *p = std::get_if<ConvolutionParams>(&layer.params); p && (p->int8_input || p->fp16))
            captured.values[layer.inputs[0]];
        if (const auto *p = std::get_if<ActivationParams>(&layer.params);
            p && p->function == ops::ActivationFunction::Quantize)
            captured.values[layer.outputs[0]];
    }
    if (captured.values.empty()) return reference::run_graph(unfused, weights, {in});
    net.set_blob_callback(capture_anchor, &captured);
    std::vector<float> output(static_cast<size_t>(element_count(unfused.values[unfused.outputs[0]].shape)));
    net.forward(input.data(), output.data());
    net.set_blob_callback(nullptr, nullptr);
    // A value no step reports (fusion made it internal) keeps the reference's own.
    for (auto it = captured.values.begin(); it != captured.values.end();)
        it = it->second.data.empty() ? captured.values.erase(it) : std::next(it);
    return reference::run_graph(unfused, weights, {in}, &captured.values);
}

BlobCheck check_every_blob(const Graph &unfused, const NetworkPlan &plan, LoadedNetwork &net, uint64_t seed,
                           const std::vector<LayerWeights> *weights) {
    std::mt19937_64 random(seed);
    const std::vector<float> input = uniform_input(unfused.values[unfused.inputs[0]].shape, random);
    const auto expected =
        reference_values(unfused, plan, net, reference_weights(weights ? *weights : seeded_weights(plan, seed)), input);
    return compare_blobs(unfused, plan, net, input, expected);
}

BlobCheck compare_blobs(const Graph &unfused, const NetworkPlan &plan, LoadedNetwork &net,
                        const std::vector<float> &input, const std::vector<reference::Tensor> &expected) {
    Capture capture{&plan, &expected, 0, {}};
    capture.result.tolerance = plan.tolerance();
    net.set_blob_callback(compare_blob, &capture);
    std::vector<float> output(static_cast<size_t>(element_count(unfused.values[unfused.outputs[0]].shape)),
                              std::nanf(""));
    net.forward(input.data(), output.data());
    net.set_blob_callback(nullptr, nullptr);
    BlobCheck result = capture.result;
    keep_worst(result, reference::relative_l2_error(output.data(), expected[unfused.outputs[0]]), "(returned output)");
    return result;
}

double check_replays(const Graph &unfused, const NetworkPlan &plan, LoadedNetwork &net, uint64_t seed, int forwards,
                     const std::vector<LayerWeights> *weights) {
    const reference::WeightMap reference = reference_weights(weights ? *weights : seeded_weights(plan, seed));
    std::mt19937_64 random(seed ^ 0x9e3779b97f4a7c15ull);  // not check_every_blob's input
    double worst = 0.0;
    for (int f = 0; f < forwards; f++) {
        const std::vector<float> input = uniform_input(unfused.values[unfused.inputs[0]].shape, random);
        const auto expected = reference_values(unfused, plan, net, reference, input);
        std::vector<float> output(static_cast<size_t>(element_count(unfused.values[unfused.outputs[0]].shape)),
                                  std::nanf(""));
        net.forward(input.data(), output.data());
        const double error = reference::relative_l2_error(output.data(), expected[unfused.outputs[0]]);
        if (!(error <= worst)) worst = std::isnan(error) ? std::numeric_limits<double>::infinity() : error;
    }
    return worst;
}

std::string check_non_finite(const Graph &unfused, const NetworkPlan &plan, LoadedNetwork &net, uint64_t seed) {
    constexpr float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
    const std::vector<std::vector<float>> patterns = {{nan}, {inf}, {-inf}, {nan, inf, -inf, inf, -inf}};
    const Shape &in_shape = unfused.values[unfused.inputs[0]].shape;
    const Shape &out_shape = unfused.values[unfused.outputs[0]].shape;
    const reference::WeightMap weights = reference_weights(seeded_weights(plan, seed));
    std::mt19937_64 random(seed);
    std::string report;
    for (const std::vector<float> &specials : patterns) {
        std::vector<float> input = uniform_input(in_shape, random);
        std::uniform_int_distribution<size_t> position(0, input.size() - 1);
        std::string placed;
        for (float special : specials) {
            const size_t at = position(random);
            input[at] = special;
            placed += " " + std::to_string(special) + " at " + std::to_string(at);
        }
        const auto expected = reference_values(unfused, plan, net, weights, input);
        // Poison: finite and far from anything these ops produce, so an element the network
        // leaves unwritten fails whatever the reference holds there.
        std::vector<float> output(static_cast<size_t>(element_count(out_shape)), -3.0e38f);
        net.forward(input.data(), output.data());
        const std::string differences = compare_non_finite(output, expected[unfused.outputs[0]].data, 1e-5);
        if (!differences.empty()) report += "input with" + placed + ": " + differences;
    }
    return report;
}

}  // namespace cortado
