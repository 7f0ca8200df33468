#include "tests/blob_check.h"

#include <algorithm>
#include <cmath>
#include <random>

#include "tests/reference/reference_interpreter.h"
#include "tools/network_weights.h"

namespace cortado::testing {
namespace {

struct Capture {
    const NetworkPlan *plan;
    const std::vector<reference::Tensor> *expected;
    int call = 0;  // 0: the input; i + 1: step i
    BlobCheck result;
};

void keep_worst(BlobCheck &result, double error, const std::string &blob) {
    if (!(error <= result.worst_error)) {  // NaN-safe: a NaN error always becomes the worst
        result.worst_error = error;
        result.worst_blob = blob;
    }
}

void compare_blob(void *user, const char *blob, int, const int64_t *, const float *data) {
    auto *c = static_cast<Capture *>(user);
    const int tensor = c->call == 0 ? c->plan->input_tensor : c->plan->steps[c->call - 1].output_tensor;
    c->call++;
    const int value = c->plan->tensors[tensor].value;
    c->result.blobs_checked++;
    const reference::Tensor &expected = (*c->expected)[value];
    if (std::all_of(expected.data.begin(), expected.data.end(), [](double v) { return v == 0.0; }))
        c->result.all_zero_blobs++;
    keep_worst(c->result, reference::relative_l2_error(data, expected), blob);
}

}  // namespace

BlobCheck check_every_blob(const Graph &unfused, const NetworkPlan &plan, LoadedNetwork &net,
                           uint64_t seed) {
    const Shape &in_shape = unfused.values[unfused.inputs[0]].shape;
    std::vector<float> input(static_cast<size_t>(element_count(in_shape)));
    std::mt19937_64 random(seed);
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    for (float &v : input) v = uniform(random);
    const auto expected = reference::run_graph(
        unfused, reference_weights(seeded_weights(plan, seed)),
        {reference::Tensor{in_shape, std::vector<double>(input.begin(), input.end())}});

    Capture capture{&plan, &expected};
    net.set_blob_callback(compare_blob, &capture);
    std::vector<float> output(static_cast<size_t>(element_count(unfused.values[unfused.outputs[0]].shape)),
                              std::nanf(""));
    net.forward(input.data(), output.data());
    net.set_blob_callback(nullptr, nullptr);
    BlobCheck result = capture.result;
    keep_worst(result, reference::relative_l2_error(output.data(), expected[unfused.outputs[0]]),
               "(returned output)");
    return result;
}

}  // namespace cortado::testing
