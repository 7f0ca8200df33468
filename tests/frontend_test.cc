// The frontend: real prototxt files parse and infer the documented output shapes; Caffe's
// semantics (V1 upgrade, phases, in-place, pooling rounding); bad input gives a clear error that
// names file:line or the layer; graphs read back from their JSON as they were.
#include <gtest/gtest.h>

#include <sstream>

#include "Halide.h"
#include "compiler/emit_network.h"
#include "compiler/graph_json.h"
#include "compiler/kernel_plan.h"
#include "compiler/memory_plan.h"
#include "compiler/network_weights.h"
#include "compiler/target_description.h"
#include "compiler/toolchain.h"
#include "frontend/compile_error.h"
#include "frontend/affine_folding.h"
#include "frontend/fusion.h"
#include "frontend/load_network.h"
#include "frontend/onnx_constants.h"
#include "frontend/shape_inference.h"
#include "frontend/untrained_fillers.h"
#include "tests/network_harness.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace cortado::testing {
namespace {

Graph load_shared(const std::string &file, ImportOptions options = {}) {
    return load_network(shared_models_dir() + "/" + file, options, false);
}

Shape output_shape(const Graph &g) {
    EXPECT_EQ(g.outputs.size(), 1u);
    return g.values[g.outputs[0]].shape;
}

TEST(SharedModels, ParseAndInferTheDocumentedOutputShapes) {
    if (shared_models_dir().empty()) GTEST_SKIP() << "../shared/models is absent";
    ImportOptions batch1;
    batch1.batch = 1;
    EXPECT_EQ(output_shape(load_shared("lenet.prototxt", batch1)), (Shape{1, 10}));
    EXPECT_EQ(output_shape(load_shared("cifar10_quick.prototxt", batch1)), (Shape{1, 10}));
    EXPECT_EQ(output_shape(load_shared("cifar10_full.prototxt", batch1)), (Shape{1, 10}));
    EXPECT_EQ(output_shape(load_shared("alexnet.prototxt", batch1)), (Shape{1, 1000}));
    EXPECT_EQ(output_shape(load_shared("caffenet.prototxt", batch1)), (Shape{1, 1000}));
    EXPECT_EQ(output_shape(load_shared("googlenet.prototxt", batch1)), (Shape{1, 1000}));
    ImportOptions nin;
    nin.input_shape = {1, 3, 224, 224};
    EXPECT_EQ(output_shape(load_shared("nin_imagenet_train_val_v1.prototxt", nin)), (Shape{1, 1000, 1, 1}));
    ImportOptions alex;
    alex.input_shape = {1, 3, 227, 227};
    const Graph train_val = load_shared("alexnet_train_val.prototxt", alex);
    EXPECT_EQ(output_shape(train_val), (Shape{1, 1000}));
    EXPECT_EQ(train_val.values[train_val.outputs[0]].blob_name, "fc8");
}

TEST(SharedModels, PrototxtBatchIsKeptUnlessOverridden) {
    if (shared_models_dir().empty()) GTEST_SKIP() << "../shared/models is absent";
    EXPECT_EQ(output_shape(load_shared("googlenet.prototxt")), (Shape{10, 1000}));
}

TEST(SharedModels, TrainValWithoutInputShapeIsAClearError) {
    if (shared_models_dir().empty()) GTEST_SKIP() << "../shared/models is absent";
    try {
        load_shared("nin_imagenet_train_val_v1.prototxt");
        FAIL() << "expected an error";
    } catch (const CompileError &e) {
        EXPECT_NE(std::string(e.what()).find("--input-shape"), std::string::npos) << e.what();
    }
}

TEST(SharedModels, AlexNetShapesMatchCaffe) {
    if (shared_models_dir().empty()) GTEST_SKIP() << "../shared/models is absent";
    ImportOptions batch1;
    batch1.batch = 1;
    const Graph g = load_shared("alexnet.prototxt", batch1);
    std::map<std::string, Shape> shapes;
    for (const Value &v : g.values) shapes[v.blob_name] = v.shape;
    EXPECT_EQ(shapes["conv1"], (Shape{1, 96, 55, 55}));
    EXPECT_EQ(shapes["pool1"], (Shape{1, 96, 27, 27}));  // 55 -> 27 with Caffe's rounding up
    EXPECT_EQ(shapes["conv2"], (Shape{1, 256, 27, 27}));
    EXPECT_EQ(shapes["pool5"], (Shape{1, 256, 6, 6}));
}

Graph parse(const std::string &text, ImportOptions options = {}) {
    Graph g = import_caffe_prototxt_text(text, "net.prototxt", options);
    infer_shapes(g);
    return g;
}

std::string error_of(const std::string &text, ImportOptions options = {}) {
    try {
        parse(text, options);
    } catch (const CompileError &e) {
        return e.what();
    }
    ADD_FAILURE() << "no error for:\n" << text;
    return "";
}

const char *kInput = "input: \"data\"\ninput_dim: 1\ninput_dim: 3\ninput_dim: 8\ninput_dim: 8\n";

TEST(Errors, MalformedPrototxtNamesFileAndLine) {
    const std::string e = error_of(
        std::string(kInput) +
        "layer {\n  name: \"c\"\n  type: \"ReLU\"\n  bottom: \"data\" top: \"c\"\n  relu_param { negative_slope: abc }\n}\n");
    EXPECT_NE(e.find("net.prototxt:10:"), std::string::npos) << e;
}

TEST(Errors, UnknownLayerTypesAreListedAllAtOnce) {
    const std::string e = error_of(std::string(kInput) +
                                   "layer { name: \"a\" type: \"Swirl\" bottom: \"data\" top: \"a\" }\n"
                                   "layer { name: \"b\" type: \"Twirl\" bottom: \"a\" top: \"b\" }\n");
    EXPECT_NE(e.find("net.prototxt:6: layer 'a' has type 'Swirl'"), std::string::npos) << e;
    EXPECT_NE(e.find("net.prototxt:7: layer 'b' has type 'Twirl'"), std::string::npos) << e;
}

// Unsupported types come before any check of how layers connect: the layer after a Threshold
// is not blamed for its missing bottom; a misspelt type gets a suggestion, a real Caffe type none.
TEST(Errors, UnsupportedTypesComeBeforeConnectionChecks) {
    const std::string e = error_of(
        std::string(kInput) +
        "layer { name: \"up\" type: \"Threshold\" bottom: \"data\" top: \"up\" }\n"
        "layer { name: \"p\" type: \"Pooling\" bottom: \"up\" top: \"p\" pooling_param { kernel_size: 2 } }\n"
        "layer { name: \"c\" type: \"Convolutoin\" bottom: \"p\" top: \"c\" }\n");
    EXPECT_NE(e.find("net.prototxt:6: layer 'up' has type 'Threshold'\n"), std::string::npos) << e;
    EXPECT_NE(e.find("net.prototxt:8: layer 'c' has type 'Convolutoin' (did you mean Convolution?)"), std::string::npos)
        << e;
    EXPECT_EQ(e.find("produced by no earlier layer"), std::string::npos) << e;
}

TEST(Errors, MisspeltFieldInACompiledLayerIsAnError) {
    const std::string e = error_of(std::string(kInput) +
                                   "layer { name: \"c\" type: \"Convolution\" bottom: \"data\" top: \"c\"\n"
                                   "  convolution_param { num_output: 2 kernel_size: 3 padd: 1 } }\n");
    EXPECT_NE(e.find("net.prototxt:7:"), std::string::npos) << e;
    EXPECT_NE(e.find("layer 'c'"), std::string::npos) << e;
    EXPECT_NE(e.find("padd"), std::string::npos) << e;
}

TEST(Errors, BottomNoLayerProduces) {
    const std::string e =
        error_of(std::string(kInput) + "layer { name: \"r\" type: \"ReLU\" bottom: \"nothing\" top: \"r\" }\n");
    EXPECT_NE(e.find("layer 'r'"), std::string::npos) << e;
    EXPECT_NE(e.find("'nothing' is produced by no earlier layer"), std::string::npos) << e;
}

TEST(Errors, ClipNeedsOrderedBounds) {
    std::string e =
        error_of(std::string(kInput) +
                 "layer { name: \"k\" type: \"Clip\" bottom: \"data\" top: \"k\" clip_param { min: 0 } }\n");
    EXPECT_NE(e.find("layer 'k'"), std::string::npos) << e;
    EXPECT_NE(e.find("clip_param needs both min and max"), std::string::npos) << e;
    e = error_of(std::string(kInput) +
                 "layer { name: \"k\" type: \"Clip\" bottom: \"data\" top: \"k\" clip_param { min: 2 max: 1 } }\n");
    EXPECT_NE(e.find("min is above its max"), std::string::npos) << e;
}

TEST(Errors, MismatchedConcatAndEltwiseShapes) {
    const std::string net =
        std::string(kInput) +
        "layer { name: \"p\" type: \"Pooling\" bottom: \"data\" top: \"p\" pooling_param { kernel_size: 2 stride: 2 } }\n";
    std::string e =
        error_of(net + "layer { name: \"cat\" type: \"Concat\" bottom: \"data\" bottom: \"p\" top: \"cat\" }\n");
    EXPECT_NE(e.find("layer 'cat' (Concat)"), std::string::npos) << e;
    EXPECT_NE(e.find("1x3x4x4"), std::string::npos) << e;
    e = error_of(net + "layer { name: \"sum\" type: \"Eltwise\" bottom: \"data\" bottom: \"p\" top: \"sum\" }\n");
    EXPECT_NE(e.find("layer 'sum' (Eltwise)"), std::string::npos) << e;
}

TEST(Errors, DuplicateTopAndBadParameters) {
    std::string e = error_of(std::string(kInput) +
                             "layer { name: \"a\" type: \"ReLU\" bottom: \"data\" top: \"x\" }\n"
                             "layer { name: \"b\" type: \"ReLU\" bottom: \"data\" top: \"x\" }\n");
    EXPECT_NE(e.find("layer 'b'"), std::string::npos) << e;
    e = error_of(
        std::string(kInput) +
        "layer { name: \"c\" type: \"Convolution\" bottom: \"data\" top: \"c\" convolution_param { num_output: 4 } }\n");
    EXPECT_NE(e.find("kernel_size"), std::string::npos) << e;
    e = error_of(
        std::string(kInput) +
        "layer { name: \"c\" type: \"Convolution\" bottom: \"data\" top: \"c\" convolution_param { num_output: 2147483647 kernel_size: 3 } }\n");
    EXPECT_NE(e.find("num_output"), std::string::npos) << e;
    e = error_of(
        std::string(kInput) +
        "layer { name: \"c\" type: \"Convolution\" bottom: \"data\" top: \"c\" convolution_param { num_output: 4 kernel_size: 9 } }\n");
    EXPECT_NE(e.find("larger than the padded input"), std::string::npos) << e;
}

TEST(Limits, HugeZeroAndOverflowingShapesAreErrors) {
    std::string e = error_of(
        "input: \"data\"\ninput_shape { dim: 4294967296 dim: 4294967296 dim: 4294967296 }\n"
        "layer { name: \"r\" type: \"ReLU\" bottom: \"data\" top: \"r\" }\n");
    EXPECT_NE(e.find("input 'data'"), std::string::npos) << e;
    e = error_of(
        "input: \"data\"\ninput_shape { dim: 1 dim: 0 dim: 3 }\n"
        "layer { name: \"r\" type: \"ReLU\" bottom: \"data\" top: \"r\" }\n");
    EXPECT_NE(e.find("1x0x3"), std::string::npos) << e;
    e = error_of(
        std::string(kInput) +
        "layer { name: \"f\" type: \"InnerProduct\" bottom: \"data\" top: \"f\" inner_product_param { num_output: 1048576 } }\n"
        "layer { name: \"g\" type: \"Reshape\" bottom: \"f\" top: \"g\" reshape_param { shape { dim: 0 dim: 1048576 dim: 1048576 dim: -1 } } }\n");
    EXPECT_NE(e.find("layer 'g'"), std::string::npos) << e;
}

TEST(Limits, DeeplyNestedMessagesAreRefusedNotAStackOverflow) {
    // Found by fuzzing: protobuf's text parser recursed once per level while skipping the
    // unknown field, and 200000 levels overflowed the stack.
    const int levels = 200000;
    std::string text = "layer { unknown_param ";
    for (int i = 0; i < levels; i++) text += "{ a ";
    text += std::string(levels, '}') + " }\n";
    const std::string e = error_of(text);
    EXPECT_NE(e.find("net.prototxt:1: messages nested more than 64 levels deep"), std::string::npos) << e;
}

TEST(Limits, LayersThatConsumeNothingAndCyclesAreErrors) {
    std::string e = error_of(std::string(kInput) + "layer { name: \"lonely\" type: \"ReLU\" top: \"x\" }\n");
    EXPECT_NE(e.find("layer 'lonely' (ReLU): has 0 bottoms"), std::string::npos) << e;
    e = error_of(std::string(kInput) +
                 "layer { name: \"a\" type: \"ReLU\" bottom: \"b\" top: \"a\" }\n"
                 "layer { name: \"b\" type: \"ReLU\" bottom: \"a\" top: \"b\" }\n");
    EXPECT_NE(e.find("layer 'a'"), std::string::npos) << e;
    EXPECT_NE(e.find("'b' is produced by no earlier layer"), std::string::npos) << e;
}

TEST(Caffe, V1LayersPhasesAndDataLayers) {
    const std::string v1 =
        "name: \"v1\"\n"
        "layers { name: \"d\" type: DATA top: \"data\" top: \"label\" include { phase: TRAIN } }\n"
        "layers { name: \"d\" type: DATA top: \"data\" top: \"label\" include { phase: TEST } }\n"
        "layers { name: \"c\" type: CONVOLUTION bottom: \"data\" top: \"c\" blobs_lr: 1 blobs_lr: 2\n"
        "  convolution_param { num_output: 4 kernel_size: 3 } }\n"
        "layers { name: \"r\" type: RELU bottom: \"c\" top: \"c\" }\n"
        "layers { name: \"loss\" type: SOFTMAX_LOSS bottom: \"c\" bottom: \"label\" top: \"loss\" }\n"
        "layers { name: \"acc\" type: ACCURACY bottom: \"c\" bottom: \"label\" top: \"acc\" include { phase: TEST } }\n";
    ImportOptions options;
    options.input_shape = {2, 3, 10, 10};
    const Graph g = parse(v1, options);
    ASSERT_EQ(g.layers.size(), 2u);
    EXPECT_EQ(g.layers[0].type, "Convolution");
    EXPECT_EQ(g.layers[1].type, "ReLU");
    EXPECT_EQ(output_shape(g), (Shape{2, 4, 8, 8}));
}

TEST(Caffe, InPlaceLayersBecomeNewValuesAndReluFuses) {
    Graph g = parse(
        std::string(kInput) +
        "layer { name: \"c\" type: \"Convolution\" bottom: \"data\" top: \"c\" convolution_param { num_output: 4 kernel_size: 3 } }\n"
        "layer { name: \"r\" type: \"ReLU\" bottom: \"c\" top: \"c\" }\n");
    ASSERT_EQ(g.layers.size(), 2u);
    EXPECT_NE(g.layers[0].outputs[0], g.layers[1].outputs[0]);
    fuse_activations(g);
    ASSERT_EQ(g.layers.size(), 1u);
    EXPECT_TRUE(std::get<ConvolutionParams>(g.layers[0].params).fused_relu);
}

// A Pad that pads nothing (PyTorch's exporter writes one before each of DenseNet's
// AveragePools) merges into the layer before it, which then feeds the pooling; one that pads
// stays a layer of its own.
TEST(Fusion, EmptyPadsMergeIntoTheirProducer) {
    for (const int pad : {0, 1}) {
        Graph g = parse(std::string(kInput) +
                        "layer { name: \"c\" type: \"Convolution\" bottom: \"data\" top: \"c\" "
                        "convolution_param { num_output: 4 kernel_size: 3 } }\n"
                        "layer { name: \"p\" type: \"Pooling\" bottom: \"c\" top: \"p\" "
                        "pooling_param { pool: AVE kernel_size: 2 stride: 2 } }\n");
        ASSERT_EQ(g.layers.size(), 2u);
        Layer padding;  // as the ONNX importer writes one
        padding.name = "c_pad";
        padding.type = "Pad";
        padding.inputs = g.layers[0].outputs;
        padding.outputs = {g.add_value("c_pad")};
        padding.params = PadParams{pad, pad, pad, pad, 0.0f};
        g.layers[1].inputs = padding.outputs;
        g.layers.insert(g.layers.begin() + 1, padding);
        infer_shapes(g);
        fuse_layers(g);
        if (pad) {
            EXPECT_EQ(g.layers.size(), 3u);
            continue;
        }
        ASSERT_EQ(g.layers.size(), 2u);
        EXPECT_EQ(g.layers[0].fused_layers, std::vector<std::string>{"c_pad"});
        EXPECT_EQ(g.layers[1].inputs, g.layers[0].outputs);
    }
}

TEST(Caffe, ReluThatIsNotInPlaceIsNotFused) {
    Graph g = parse(
        std::string(kInput) +
        "layer { name: \"c\" type: \"Convolution\" bottom: \"data\" top: \"c\" convolution_param { num_output: 4 kernel_size: 3 } }\n"
        "layer { name: \"r\" type: \"ReLU\" bottom: \"c\" top: \"r\" }\n");
    fuse_activations(g);
    EXPECT_EQ(g.layers.size(), 2u);
}

// ResNet's conv -> BatchNorm -> Scale -> ReLU becomes one convolution with two folded affines
// and a fused ReLU; a Scale along another axis, or a convolution read twice, stays.
TEST(Caffe, BatchNormAndScaleFoldIntoTheConvolution) {
    const std::string conv =
        "layer { name: \"c\" type: \"Convolution\" bottom: \"data\" top: \"c\" convolution_param { num_output: 4 kernel_size: 3 } }\n";
    Graph g = parse(std::string(kInput) + conv +
                    "layer { name: \"bn\" type: \"BatchNorm\" bottom: \"c\" top: \"c\" batch_norm_param { eps: 0.001 } }\n"
                    "layer { name: \"s\" type: \"Scale\" bottom: \"c\" top: \"c\" scale_param { bias_term: true } }\n"
                    "layer { name: \"r\" type: \"ReLU\" bottom: \"c\" top: \"c\" }\n");
    fold_affines(g);
    fuse_activations(g);
    ASSERT_EQ(g.layers.size(), 1u);
    const auto &p = std::get<ConvolutionParams>(g.layers[0].params);
    ASSERT_EQ(p.folded_affines.size(), 2u);
    EXPECT_TRUE(p.folded_affines[0].batch_norm);
    EXPECT_FLOAT_EQ(p.folded_affines[0].eps, 0.001f);
    EXPECT_EQ(p.folded_affines[1].layer, "s");
    EXPECT_TRUE(p.folded_affines[1].shift);
    EXPECT_TRUE(p.fused_relu);
    EXPECT_EQ(g.layers[0].fused_layers, (std::vector<std::string>{"bn", "s", "r"}));

    Graph other_axis = parse(std::string(kInput) + conv +
                             "layer { name: \"s\" type: \"Scale\" bottom: \"c\" top: \"s\" scale_param { axis: 2 } }\n");
    fold_affines(other_axis);
    EXPECT_EQ(other_axis.layers.size(), 2u);
    Graph read_twice = parse(std::string(kInput) + conv +
                             "layer { name: \"bn\" type: \"BatchNorm\" bottom: \"c\" top: \"bn\" }\n"
                             "layer { name: \"e\" type: \"Eltwise\" bottom: \"c\" bottom: \"bn\" top: \"e\" }\n");
    fold_affines(read_twice);
    EXPECT_EQ(read_twice.layers.size(), 3u);
}

// DenseNet's BatchNorm -> Scale -> ReLU before a convolution (no product to fold into) becomes
// one BatchNorm with the Scale folded into its map and the ReLU fused; planned, one
// channel-affine kernel with a ReLU epilogue.
TEST(Caffe, ScaleAndReluJoinABatchNormThatFollowsNoProduct) {
    Graph g = parse(std::string(kInput) +
                    "layer { name: \"p\" type: \"Pooling\" bottom: \"data\" top: \"p\" pooling_param { kernel_size: 2 stride: 2 } }\n"
                    "layer { name: \"bn\" type: \"BatchNorm\" bottom: \"p\" top: \"p\" }\n"
                    "layer { name: \"s\" type: \"Scale\" bottom: \"p\" top: \"p\" scale_param { bias_term: true } }\n"
                    "layer { name: \"r\" type: \"ReLU\" bottom: \"p\" top: \"p\" }\n");
    fuse_layers(g);
    ASSERT_EQ(g.layers.size(), 2u);
    const auto &bn = std::get<BatchNormParams>(g.layers[1].params);
    ASSERT_EQ(bn.folded_affines.size(), 1u);
    EXPECT_EQ(bn.folded_affines[0].layer, "s");
    EXPECT_TRUE(bn.fused_relu);
    EXPECT_EQ(g.layers[1].fused_layers, (std::vector<std::string>{"s", "r"}));
    const NetworkPlan plan = plan_network(g, "net", std::string("x86-64-linux-avx2"));
    ASSERT_EQ(plan.steps.size(), 2u);
    const KernelInstance &affine = plan.kernels[size_t(plan.steps[1].kernel)];
    EXPECT_EQ(affine.op, "channel_affine");
    EXPECT_TRUE(affine.choice.epilogue.relu);
    EXPECT_EQ(plan.folds.size(), 2u) << "the BatchNorm and the Scale, applied to the identity map";
}

// ReLU6 as Caffe writes it (ReLU, then Clip, both in place) fuses into the convolution: a ReLU
// and an activation in its epilogue, in that order, kept by the JSON. An activation after the
// fused one, or a ReLU after it, stays its own layer.
TEST(Caffe, ClipAfterAReluFusesIntoTheConvolution) {
    const std::string conv =
        "layer { name: \"c\" type: \"Convolution\" bottom: \"data\" top: \"c\" convolution_param { num_output: 4 kernel_size: 3 } }\n";
    const std::string clip = "layer { name: \"a\" type: \"Clip\" bottom: \"c\" top: \"c\" clip_param { min: 0 max: 6 } }\n";
    Graph g = parse(std::string(kInput) + conv + "layer { name: \"r\" type: \"ReLU\" bottom: \"c\" top: \"c\" }\n" + clip);
    fuse_layers(g);
    ASSERT_EQ(g.layers.size(), 1u);
    EXPECT_EQ(g.layers[0].fused_layers, (std::vector<std::string>{"r", "a"}));
    const Graph read = graph_from_json(nlohmann::json::parse(graph_json_text(g)));
    const auto &p = std::get<ConvolutionParams>(read.layers[0].params);
    EXPECT_TRUE(p.fused_relu);
    ASSERT_TRUE(p.fused_activation.has_value());
    EXPECT_EQ(p.fused_activation->function, ops::ActivationFunction::Clip);
    EXPECT_FLOAT_EQ(p.fused_activation->max, 6.0f);
    const NetworkPlan plan = plan_network(g, "net", std::string("x86-64-linux-avx2"));
    ASSERT_EQ(plan.kernels.size(), 1u);
    const ops::Epilogue &e = plan.kernels[0].choice.epilogue;
    EXPECT_TRUE(e.relu);
    EXPECT_TRUE(e.activation);
    EXPECT_EQ(e.activation_shape.function, ops::ActivationFunction::Clip);
    EXPECT_FLOAT_EQ(e.activation_shape.min, 0.0f);

    Graph two = parse(std::string(kInput) + conv + clip +
                      "layer { name: \"t\" type: \"TanH\" bottom: \"c\" top: \"c\" }\n"
                      "layer { name: \"r\" type: \"ReLU\" bottom: \"c\" top: \"c\" }\n");
    fuse_layers(two);
    ASSERT_EQ(two.layers.size(), 3u);
    EXPECT_EQ(two.layers[0].fused_layers, (std::vector<std::string>{"a"}));
}

// SiLU and HardSwish as exporters write them, x times its gate, become one activation that then
// fuses into x's producer; a gate read twice, or a product of x with another tensor's gate, stays.
TEST(Caffe, XTimesItsGateFusesIntoTheConvolution) {
    const std::string conv =
        "layer { name: \"c\" type: \"Convolution\" bottom: \"data\" top: \"c\" convolution_param { num_output: 4 kernel_size: 3 } }\n";
    Graph g = parse(std::string(kInput) + conv + "layer { name: \"s\" type: \"Sigmoid\" bottom: \"c\" top: \"s\" }\n" +
                    "layer { name: \"m\" type: \"Eltwise\" bottom: \"s\" bottom: \"c\" top: \"m\" eltwise_param { operation: PROD } }\n" +
                    "layer { name: \"p\" type: \"Pooling\" bottom: \"m\" top: \"p\" pooling_param { kernel_size: 2 } }\n");
    fuse_layers(g);
    ASSERT_EQ(g.layers.size(), 2u);
    EXPECT_EQ(g.layers[0].fused_layers, (std::vector<std::string>{"s", "m"}));
    const auto &p = std::get<ConvolutionParams>(g.layers[0].params);
    ASSERT_TRUE(p.fused_activation.has_value());
    EXPECT_EQ(p.fused_activation->function, ops::ActivationFunction::Silu);
    EXPECT_EQ(g.layers[1].inputs[0], g.layers[0].outputs[0]);

    Graph gate_read_twice = parse(
        std::string(kInput) + conv + "layer { name: \"s\" type: \"Sigmoid\" bottom: \"c\" top: \"s\" }\n" +
        "layer { name: \"m\" type: \"Eltwise\" bottom: \"s\" bottom: \"c\" top: \"m\" eltwise_param { operation: PROD } }\n" +
        "layer { name: \"e\" type: \"Eltwise\" bottom: \"m\" bottom: \"s\" top: \"e\" }\n");
    fuse_layers(gate_read_twice);
    EXPECT_EQ(gate_read_twice.layers.size(), 4u);
    Graph other_gate = parse(
        std::string(kInput) + conv +
        "layer { name: \"d\" type: \"Convolution\" bottom: \"data\" top: \"d\" convolution_param { num_output: 4 kernel_size: 3 } }\n"
        "layer { name: \"s\" type: \"Sigmoid\" bottom: \"d\" top: \"s\" }\n" +
        "layer { name: \"m\" type: \"Eltwise\" bottom: \"s\" bottom: \"c\" top: \"m\" eltwise_param { operation: PROD } }\n");
    fuse_layers(other_gate);
    EXPECT_EQ(other_gate.layers.size(), 4u) << "c, d, its Sigmoid and the product";
    // After a layer that takes no activation, the Silu stays its own layer and keeps its blob.
    Graph after_pooling = parse(
        std::string(kInput) +
        "layer { name: \"p\" type: \"Pooling\" bottom: \"data\" top: \"p\" pooling_param { kernel_size: 2 } }\n"
        "layer { name: \"s\" type: \"Sigmoid\" bottom: \"p\" top: \"s\" }\n"
        "layer { name: \"m\" type: \"Eltwise\" bottom: \"p\" bottom: \"s\" top: \"m\" eltwise_param { operation: PROD } }\n"
        "layer { name: \"r\" type: \"ReLU\" bottom: \"m\" top: \"r\" }\n");
    fuse_layers(after_pooling);
    ASSERT_EQ(after_pooling.layers.size(), 3u);
    EXPECT_EQ(after_pooling.layers[1].type, "Silu");
    EXPECT_EQ(after_pooling.values[after_pooling.layers[1].outputs[0]].blob_name, "m");
}

// ResNet's sum -> ReLU: one eltwise kernel with a ReLU epilogue; the JSON keeps the fusion.
TEST(Caffe, ReluAfterASumFusesIntoIt) {
    Graph g = parse(std::string(kInput) +
                    "layer { name: \"e\" type: \"Eltwise\" bottom: \"data\" bottom: \"data\" top: \"e\" }\n"
                    "layer { name: \"r\" type: \"ReLU\" bottom: \"e\" top: \"e\" relu_param { negative_slope: 0.5 } }\n");
    fuse_layers(g);
    ASSERT_EQ(g.layers.size(), 1u);
    EXPECT_TRUE(std::get<EltwiseParams>(g.layers[0].params).fused_relu);
    const Graph read = graph_from_json(nlohmann::json::parse(graph_json_text(g)));
    EXPECT_FLOAT_EQ(std::get<EltwiseParams>(read.layers[0].params).relu_negative_slope, 0.5f);
    const NetworkPlan plan = plan_network(g, "net", std::string("x86-64-linux-avx2"));
    ASSERT_EQ(plan.kernels.size(), 1u);
    EXPECT_TRUE(plan.kernels[0].choice.epilogue.relu);
    EXPECT_FLOAT_EQ(plan.kernels[0].choice.epilogue.relu_slope, 0.5f);
}

// ResNet's conv -> sum -> ReLU: the later convolution of the two operands adds the other in its
// epilogue and takes the ReLU; it runs where the sum was, reads the residual as its second input
// (the plan's fourth view, shaped as the output) and writes NCHW. The JSON keeps the fusion. A
// sum with a coefficient, a convolution with its own ReLU, one read twice or the network's
// output, and a sum of three stay as they are.
TEST(Caffe, ResidualSumFusesIntoTheConvolution) {
    const auto conv = [](const std::string &name, const std::string &bottom, const std::string &extra = "") {
        return "layer { name: \"" + name + "\" type: \"Convolution\" bottom: \"" + bottom + "\" top: \"" + name +
               "\" convolution_param { num_output: 16 kernel_size: 1 } }\n" + extra;
    };
    const auto sum = [](const std::string &bottoms, const std::string &param = "") {
        std::string text = "layer { name: \"e\" type: \"Eltwise\"";
        std::stringstream names(bottoms);
        for (std::string b; names >> b;) text += " bottom: \"" + b + "\"";
        return text + " top: \"e\" " + param + " }\n";
    };
    const std::string relu = "layer { name: \"r\" type: \"ReLU\" bottom: \"e\" top: \"e\" }\n";
    const std::string bottleneck = conv("a", "data") + conv("b", "a") + conv("c", "b") + sum("a c") + relu;
    Graph g = parse(std::string(kInput) + bottleneck);
    fuse_layers(g);
    ASSERT_EQ(g.layers.size(), 3u);
    const Layer &fused = g.layers[2];
    EXPECT_EQ(fused.name, "c");
    EXPECT_EQ(fused.fused_layers, (std::vector<std::string>{"e", "r"}));
    const auto &p = std::get<ConvolutionParams>(fused.params);
    EXPECT_TRUE(p.fused_sum);
    EXPECT_TRUE(p.fused_relu);
    ASSERT_EQ(fused.inputs.size(), 2u);
    EXPECT_EQ(g.values[fused.inputs[1]].blob_name, "a");
    EXPECT_EQ(g.values[fused.outputs[0]].blob_name, "e");
    const Graph read = graph_from_json(nlohmann::json::parse(graph_json_text(g)));
    EXPECT_TRUE(std::get<ConvolutionParams>(read.layers[2].params).fused_sum);
    const NetworkPlan plan = plan_network(g, "net", std::string("x86-64-linux-avx512"));
    ASSERT_EQ(plan.steps.size(), 3u);
    const PlannedStep &step = plan.steps[2];
    const ops::Choice &choice = plan.kernels[size_t(step.kernel)].choice;
    EXPECT_TRUE(choice.epilogue.sum);
    EXPECT_TRUE(choice.epilogue.relu);
    EXPECT_FALSE(choice.layout_out.blocked());
    ASSERT_EQ(step.views.size(), 5u);
    EXPECT_EQ(step.views[3].extents, step.views[4].extents);
    EXPECT_EQ(plan.tensors[size_t(step.views[3].tensor)].shape, (Shape{1, 16, 8, 8}));

    // Both operands convolutions: the later one fuses, and the sum's place is kept.
    Graph both = parse(std::string(kInput) + conv("a", "data") + conv("b", "data") + sum("a b"));
    fuse_layers(both);
    ASSERT_EQ(both.layers.size(), 2u);
    EXPECT_EQ(both.layers[1].name, "b");
    EXPECT_EQ(both.values[both.layers[1].inputs[1]].blob_name, "a");

    const auto unfused = [&](const std::string &body, size_t layers) {
        Graph graph = parse(std::string(kInput) + body);
        fuse_layers(graph);
        EXPECT_EQ(graph.layers.size(), layers) << body;
        for (const Layer &layer : graph.layers)
            if (const auto *c = std::get_if<ConvolutionParams>(&layer.params)) {
                EXPECT_FALSE(c->fused_sum) << body;
            }
    };
    unfused(conv("a", "data") + conv("c", "a") + sum("a c", "eltwise_param { coeff: 1 coeff: 2 }"), 3);
    unfused(conv("a", "data") + conv("c", "a", "layer { name: \"cr\" type: \"ReLU\" bottom: \"c\" top: \"c\" }\n") +
                sum("a c"),
            3);
    unfused(conv("a", "data") + conv("c", "a") + sum("a c") +
                "layer { name: \"x\" type: \"Eltwise\" bottom: \"c\" bottom: \"e\" top: \"x\" }\n",
            4);
    unfused(conv("a", "data") + conv("c", "a") + conv("d", "a") + sum("a c d"), 4);
    unfused(conv("a", "data") + sum("a a"), 2);
}

// Caffe's two-bottom Scale: the second bottom must match x's axes from `axis` on; three bottoms
// are refused. The error names the layer and the blob.
TEST(Caffe, ScaleBySecondBottomChecksItsShape) {
    const std::string pooled = "layer { name: \"p\" type: \"Pooling\" bottom: \"data\" top: \"p\" pooling_param { pool: AVE global_pooling: true } }\n"
                               "layer { name: \"f\" type: \"Flatten\" bottom: \"p\" top: \"f\" }\n";
    Graph g = parse(std::string(kInput) + pooled +
                    "layer { name: \"s\" type: \"Scale\" bottom: \"data\" bottom: \"f\" top: \"s\" scale_param { axis: 0 bias_term: true } }\n");
    EXPECT_EQ(output_shape(g), (Shape{1, 3, 8, 8}));
    EXPECT_EQ(g.layers.back().weight_shapes, (std::vector<Shape>{{1, 3}}));
    std::string e = error_of(std::string(kInput) + pooled +
                             "layer { name: \"s\" type: \"Scale\" bottom: \"data\" bottom: \"f\" top: \"s\" }\n");
    EXPECT_NE(e.find("layer 's' (Scale): the scale bottom 'f' has shape 1x3"), std::string::npos) << e;
    e = error_of(std::string(kInput) + pooled +
                 "layer { name: \"s\" type: \"Scale\" bottom: \"data\" bottom: \"f\" bottom: \"f\" top: \"s\" }\n");
    EXPECT_NE(e.find("layer 's' (Scale): has 3 bottoms, expected 1..2"), std::string::npos) << e;
}

// F(4x4) on a map below 24 pays only on channel-blocked tensors (winograd_small_map_m,
// schedules/cpu/conv2d_space.h): between two 1x1 layers, which block it, the 3x3 layer keeps it;
// alone, reading the network's input and writing its output as NCHW, the plan moves it to F(2x2)
// through the layout rule.
TEST(Planner, SmallMapWinogradF4OnlyOnBlockedTensors) {
    const std::string input = "input: \"data\"\ninput_shape { dim: 20 dim: 160 dim: 14 dim: 14 }\n";
    const auto conv = [](const std::string &name, const std::string &bottom, int outputs, int kernel) {
        return "layer { name: \"" + name + "\" type: \"Convolution\" bottom: \"" + bottom + "\" top: \"" + name +
               "\" convolution_param { num_output: " + std::to_string(outputs) +
               " kernel_size: " + std::to_string(kernel) + " pad: " + std::to_string(kernel / 2) + " } }\n";
    };
    const auto choice_of = [&](const std::string &body, const std::string &layer) {
        const NetworkPlan plan = plan_network(parse(input + body), "net", std::string("x86-64-linux-avx2-fma"));
        for (const PlannedStep &s : plan.steps)
            if (s.layer == layer) return plan.kernels[size_t(s.kernel)];
        ADD_FAILURE() << "no step " << layer;
        return KernelInstance{};
    };
    const KernelInstance blocked =
        choice_of(conv("a", "data", 160, 1) + conv("b", "a", 320, 3) + conv("c", "b", 320, 1), "b");
    EXPECT_EQ(blocked.choice.variant, "cpu_winograd_f4");
    EXPECT_EQ(blocked.variant_source, kDefaultRuleSource);
    EXPECT_GT(blocked.choice.layout_out.channel_block, 0);
    const KernelInstance alone = choice_of(conv("b", "data", 320, 3), "b");
    EXPECT_EQ(alone.choice.variant, "cpu_winograd_f2");
    EXPECT_EQ(alone.variant_source, kLayoutRuleSource);
    EXPECT_EQ(alone.choice.layout_out.channel_block, 0);
}

// A Concat whose inputs each have one writer runs no kernel: the producers write into their
// slices, at batch above 1 with the concatenation's image as their batch stride. DenseNet's
// growing concatenations share one buffer; the network's input, an input read by two
// concatenations that do not nest, an input that a kernel without batch strides reads at batch 2,
// and OpenCL offsets a sub-buffer cannot start on keep the copy.
TEST(Planner, ConcatenationsRunInPlaceWhereTheSlicesAllow) {
    const auto conv = [](const std::string &name, const std::string &bottom, int outputs) {
        return "layer { name: \"" + name + "\" type: \"Convolution\" bottom: \"" + bottom + "\" top: \"" + name +
               "\" convolution_param { num_output: " + std::to_string(outputs) + " kernel_size: 1 } }\n";
    };
    const auto concat = [](const std::string &name, const std::vector<std::string> &bottoms) {
        std::string text = "layer { name: \"" + name + "\" type: \"Concat\"";
        for (const std::string &b : bottoms) text += " bottom: \"" + b + "\"";
        return text + " top: \"" + name + "\" }\n";
    };
    const std::string dense = conv("a", "data", 4) + conv("b", "data", 2) + concat("ab", {"a", "b"}) +
                              conv("c", "ab", 2) + concat("abc", {"a", "b", "c"}) + conv("d", "abc", 3);
    const auto planned = [&](const std::string &body, int batch, const std::string &target) {
        ImportOptions options;
        options.batch = batch;
        Graph g = parse(std::string(kInput) + body, options);
        fuse_layers(g);
        return plan_network(g, "net", target);
    };
    const auto step = [](const NetworkPlan &plan, const std::string &layer) {
        for (const PlannedStep &s : plan.steps)
            if (s.layer == layer) return s;
        ADD_FAILURE() << "no step " << layer;
        return PlannedStep{};
    };
    const auto offset = [](const NetworkPlan &plan, const std::string &blob) {
        for (const PlannedTensor &t : plan.tensors)
            if (t.blob_name == blob) return t.offset;
        ADD_FAILURE() << "no tensor " << blob;
        return int64_t(-1);
    };
    const NetworkPlan plan = planned(dense, 1, "x86-64-linux-avx2");
    for (const char *name : {"ab", "abc"}) {
        EXPECT_EQ(step(plan, name).kernel, -1) << name;
        EXPECT_TRUE(step(plan, name).in_place) << name;
    }
    const int64_t base = offset(plan, "abc"), plane = 8 * 8;
    EXPECT_EQ(offset(plan, "ab"), base);
    EXPECT_EQ(offset(plan, "a"), base);
    EXPECT_EQ(offset(plan, "b"), base + 4 * plane);
    EXPECT_EQ(offset(plan, "c"), base + 6 * plane);
    for (const KernelInstance &k : plan.kernels) EXPECT_NE(k.op, "concat");

    const auto tensor = [](const NetworkPlan &plan, const std::string &blob) {
        for (const PlannedTensor &t : plan.tensors)
            if (t.blob_name == blob) return t;
        ADD_FAILURE() << "no tensor " << blob;
        return PlannedTensor{};
    };
    const NetworkPlan batch2 = planned(dense, 2, "x86-64-linux-avx2");
    EXPECT_EQ(step(batch2, "ab").kernel, -1);
    EXPECT_EQ(step(batch2, "abc").kernel, -1);
    const int64_t image = (4 + 2 + 2) * plane, base2 = offset(batch2, "abc");
    EXPECT_EQ(offset(batch2, "b"), base2 + 4 * plane);
    EXPECT_EQ(offset(batch2, "c"), base2 + 6 * plane);
    for (const char *blob : {"a", "b", "c", "ab"}) EXPECT_EQ(tensor(batch2, blob).batch_stride, image) << blob;
    EXPECT_EQ(tensor(batch2, "abc").batch_stride, 0);
    EXPECT_EQ(tensor_span(tensor(batch2, "b")), image + 2 * plane);
    // Conv "c" reads ab as (x, y, channels, batch) and writes c as (pixels, channels, batch, 1):
    // the batch dimension steps by the image either way.
    // Only the kernels of steps that touch a strided tensor take the stride at run time.
    for (const PlannedStep &s : batch2.steps) {
        bool strided = false;
        for (const PlannedView &v : s.views)
            if (v.tensor >= 0 && tensor(batch2, batch2.tensors[v.tensor].blob_name).batch_stride) {
                EXPECT_EQ(v.batch_stride, image) << s.layer;
                ASSERT_GE(v.batch_dim, 1) << s.layer;
                EXPECT_EQ(v.extents[v.batch_dim], 2) << s.layer;
                strided = true;
            }
        if (s.kernel >= 0) {
            EXPECT_EQ(batch2.kernels[s.kernel].choice.batch_strided, strided) << s.layer;
        }
    }
    EXPECT_TRUE(batch2.kernels[step(batch2, "a").kernel].choice.batch_strided);
    EXPECT_FALSE(batch2.kernels[step(batch2, "d").kernel].choice.batch_strided) << "d reads abc, which is dense";
    // A standalone Sigmoid reads b as one flat range: b stays dense, and so ab copies at batch 2.
    const std::string flat_reader =
        dense + "layer { name: \"s\" type: \"Sigmoid\" bottom: \"b\" top: \"s\" }\n" + concat("out", {"d", "s"});
    EXPECT_GE(step(planned(flat_reader, 2, "x86-64-linux-avx2"), "ab").kernel, 0);
    EXPECT_EQ(step(planned(flat_reader, 1, "x86-64-linux-avx2"), "ab").kernel, -1);
    // Offsets of 4 and 6 planes (256 and 384 floats): the first OpenCL can start a sub-buffer
    // on, the second not, so the inner concatenation goes in place and the outer copies.
    const NetworkPlan opencl = planned(dense, 1, "x86-64-linux-opencl");
    EXPECT_EQ(step(opencl, "ab").kernel, -1);
    EXPECT_GE(step(opencl, "abc").kernel, 0);

    const NetworkPlan crossed = planned(conv("a", "data", 4) + conv("b", "data", 2) + concat("ab", {"a", "b"}) +
                                            concat("ba", {"b", "a"}) + concat("both", {"ab", "ba"}),
                                        1, "x86-64-linux-avx2");
    EXPECT_EQ(step(crossed, "ab").kernel, -1);
    EXPECT_GE(step(crossed, "ba").kernel, 0) << "a and b already lie in ab, in another order";
    // The network's input is the caller's to fill, not a producer's: its concatenation copies.
    const NetworkPlan with_input =
        planned(conv("a", "data", 4) + concat("da", {"data", "a"}) + conv("e", "da", 2), 1, "x86-64-linux-avx2");
    EXPECT_GE(step(with_input, "da").kernel, 0);
}

TEST(Caffe, PoolingOutputSizeRoundsUpWithPadCorrection) {
    auto pooled = [](int size, int k, int s, int p) {
        Graph g =
            parse("input: \"data\"\ninput_dim: 1\ninput_dim: 1\ninput_dim: " + std::to_string(size) +
                  "\ninput_dim: " + std::to_string(size) +
                  "\nlayer { name: \"p\" type: \"Pooling\" bottom: \"data\" top: \"p\" pooling_param { kernel_size: " +
                  std::to_string(k) + " stride: " + std::to_string(s) + " pad: " + std::to_string(p) + " } }\n");
        return g.values[g.outputs[0]].shape[2];
    };
    EXPECT_EQ(pooled(55, 3, 2, 0), 27);
    EXPECT_EQ(pooled(13, 3, 2, 0), 6);
    EXPECT_EQ(pooled(112, 3, 2, 0), 56);  // ceil((112-3)/2)+1 = 56
    EXPECT_EQ(pooled(6, 2, 2, 1), 4);     // ceil((6+2-2)/2)+1 = 4; last window starts at 6 < 6+1
    EXPECT_EQ(pooled(5, 3, 2, 1), 3);     // 4 windows would start in the padding: corrected to 3
}

// Caffe's BaseConvolutionLayer::LayerSetUp: a _h or _w field alone leaves the other at 0, which
// a pad may be and a kernel or stride may not; a list gives one value, or one per axis.
TEST(Caffe, ConvolutionHWRulesAreCaffes) {
    auto conv = [](const std::string &params) {
        const Graph g = parse(std::string(kInput) +
                              "layer { name: \"c\" type: \"Convolution\" bottom: \"data\" top: \"c\" "
                              "convolution_param { num_output: 2 " +
                              params + " } }\n");
        return std::get<ConvolutionParams>(g.layers[0].params);
    };
    ConvolutionParams c = conv("kernel_size: 3 pad_w: 2");
    EXPECT_EQ(c.pad_h, 0);
    EXPECT_EQ(c.pad_w, 2);
    c = conv("kernel_size: 3 pad_h: 1");
    EXPECT_EQ(c.pad_h, 1);
    EXPECT_EQ(c.pad_w, 0);
    c = conv("kernel_size: 3 kernel_size: 5 stride: 1 stride: 2 pad: 1 pad: 2 dilation: 2 dilation: 1");
    EXPECT_EQ(c.kernel_h, 3);
    EXPECT_EQ(c.kernel_w, 5);
    EXPECT_EQ(c.stride_h, 1);
    EXPECT_EQ(c.stride_w, 2);
    EXPECT_EQ(c.pad_h, 1);
    EXPECT_EQ(c.pad_w, 2);
    EXPECT_EQ(c.dilation_h, 2);
    EXPECT_EQ(c.dilation_w, 1);
    c = conv("kernel_h: 3 kernel_w: 1 stride_h: 2 stride_w: 1");
    EXPECT_EQ(c.kernel_h, 3);
    EXPECT_EQ(c.kernel_w, 1);
    EXPECT_EQ(c.stride_h, 2);
    EXPECT_EQ(c.stride_w, 1);

    const std::string head =
        std::string(kInput) +
        "layer { name: \"c\" type: \"Convolution\" bottom: \"data\" top: \"c\" convolution_param { num_output: 2 ";
    std::string e = error_of(head + "kernel_h: 3 } }\n");
    EXPECT_NE(e.find("kernel_w is not given, so it is 0"), std::string::npos) << e;
    e = error_of(head + "kernel_size: 3 stride_h: 2 } }\n");
    EXPECT_NE(e.find("stride_w is not given, so it is 0"), std::string::npos) << e;
    e = error_of(head + "kernel_size: 3 kernel_h: 3 kernel_w: 3 } }\n");
    EXPECT_NE(e.find("kernel and kernel_h/_w both given"), std::string::npos) << e;
    e = error_of(head + "kernel_size: 3 pad: 1 pad_w: 1 } }\n");
    EXPECT_NE(e.find("pad and pad_h/_w both given"), std::string::npos) << e;
    e = error_of(head + "kernel_size: 3 pad: 1 pad: 1 pad: 1 } }\n");
    EXPECT_NE(e.find("only 2-D convolution"), std::string::npos) << e;
    e = error_of(head + "kernel_size: 0 } }\n");
    EXPECT_NE(e.find("kernel is 0"), std::string::npos) << e;
    e = error_of(head + "kernel_size: 3 stride: 0 } }\n");
    EXPECT_NE(e.find("stride is 0"), std::string::npos) << e;
    // Caffe accepts dilation 0 (it does not check it): a window of extent 1.
    const Graph zero = parse(head + "kernel_size: 3 dilation: 0 } }\n");
    EXPECT_EQ(std::get<ConvolutionParams>(zero.layers[0].params).dilation_h, 0);
    EXPECT_EQ(zero.values[zero.layers[0].outputs[0]].shape, (Shape{1, 2, 8, 8}));
}

// Caffe's PoolingLayer::LayerSetUp: kernel_h/_w, pad_h/_w and stride_h/_w each come in pairs.
TEST(Caffe, PoolingHWRulesAreCaffes) {
    const Graph g = parse(std::string(kInput) +
                          "layer { name: \"p\" type: \"Pooling\" bottom: \"data\" top: \"p\" "
                          "pooling_param { kernel_h: 3 kernel_w: 2 pad_h: 1 pad_w: 0 stride_h: 2 stride_w: 1 } }\n");
    const PoolingParams &p = std::get<PoolingParams>(g.layers[0].params);
    EXPECT_EQ(p.kernel_h, 3);
    EXPECT_EQ(p.kernel_w, 2);
    EXPECT_EQ(p.pad_h, 1);
    EXPECT_EQ(p.pad_w, 0);
    EXPECT_EQ(p.stride_h, 2);
    EXPECT_EQ(p.stride_w, 1);

    const std::string head =
        std::string(kInput) + "layer { name: \"p\" type: \"Pooling\" bottom: \"data\" top: \"p\" pooling_param { ";
    std::string e = error_of(head + "kernel_size: 3 pad_w: 1 } }\n");
    EXPECT_NE(e.find("pad_h and pad_w go together"), std::string::npos) << e;
    e = error_of(head + "kernel_size: 3 stride_h: 2 } }\n");
    EXPECT_NE(e.find("stride_h and stride_w go together"), std::string::npos) << e;
    e = error_of(head + "kernel_h: 3 } }\n");
    EXPECT_NE(e.find("kernel_h and kernel_w"), std::string::npos) << e;
    e = error_of(head + "kernel_size: 3 kernel_h: 3 kernel_w: 3 } }\n");
    EXPECT_NE(e.find("both given"), std::string::npos) << e;
    // kernel_size with one of kernel_h/_w passes Caffe's check, and kernel_size wins.
    const Graph one_side = parse(head + "kernel_size: 3 kernel_h: 5 } }\n");
    EXPECT_EQ(std::get<PoolingParams>(one_side.layers[0].params).kernel_h, 3);
    EXPECT_EQ(std::get<PoolingParams>(one_side.layers[0].params).kernel_w, 3);
    e = error_of(head + "kernel_size: 2 pad: 2 } }\n");
    EXPECT_NE(e.find("pad must be smaller than the kernel"), std::string::npos) << e;
    e = error_of(head + "global_pooling: true kernel_size: 2 } }\n");
    EXPECT_NE(e.find("global_pooling takes no kernel size"), std::string::npos) << e;
    // BVLC's round_mode and the forks' ceil_mode round the output size the same way: on 8 rows
    // with pad 1, a 3/2 window gives ceil(7 / 2) + 1 = 5 rows, or floor(7 / 2) + 1 = 4.
    const auto rows = [&](const std::string &fields) {
        const Graph g = parse(head + "kernel_size: 3 stride: 2 pad: 1 " + fields + " } }\n");
        return g.values[g.outputs[0]].shape[2];
    };
    EXPECT_EQ(rows(""), 5);
    EXPECT_EQ(rows("ceil_mode: true"), 5);
    EXPECT_EQ(rows("ceil_mode: false"), 4);
    EXPECT_EQ(rows("round_mode: FLOOR"), 4);
    EXPECT_EQ(rows("round_mode: FLOOR ceil_mode: false"), 4);
    e = error_of(head + "kernel_size: 3 round_mode: CEIL ceil_mode: false } }\n");
    EXPECT_NE(e.find("round_mode and ceil_mode disagree"), std::string::npos) << e;
}

TEST(MemoryPlan, OverlappingLifetimesNeverShareBytes) {
    const std::vector<StorageRequest> requests = {{100, -1, 1}, {50, 0, 2}, {100, 2, 3}, {10, 3, 4}};
    int64_t arena = 0;
    const std::vector<int64_t> offsets = place_storage(requests, &arena);
    for (size_t a = 0; a < requests.size(); a++)
        for (size_t b = a + 1; b < requests.size(); b++) {
            const bool live_together =
                !(requests[a].last_step < requests[b].first_step || requests[b].last_step < requests[a].first_step);
            const bool bytes_overlap =
                offsets[a] < offsets[b] + requests[b].floats && offsets[b] < offsets[a] + requests[a].floats;
            EXPECT_FALSE(live_together && bytes_overlap) << a << " and " << b;
        }
    EXPECT_LT(arena, 100 + 50 + 100 + 10 + 64);  // reuse happened
}

std::string write_target(const std::string &name, const std::string &text) {
    const std::string path =
        (std::filesystem::temp_directory_path() / (name + "-" + std::to_string(::getpid()) + ".target")).string();
    std::ofstream(path) << text;
    return path;
}

TEST(Caffe, DeployLayersWithoutFillersGetRandomStandInsAndExplicitOnesStay) {
    Graph graph = import_caffe_prototxt_text(
        "input: \"data\"\ninput_shape { dim: 1 dim: 3 dim: 8 dim: 8 }\n"
        "layer { name: \"deploy\" type: \"Convolution\" bottom: \"data\" top: \"a\" convolution_param { num_output: 4 kernel_size: 3 } }\n"
        "layer { name: \"explicit\" type: \"Convolution\" bottom: \"a\" top: \"b\" convolution_param { num_output: 4 kernel_size: 3"
        " weight_filler { type: \"constant\" } bias_filler { type: \"constant\" } } }\n",
        "fillers.prototxt", ImportOptions{});
    EXPECT_EQ(fill_untrained_weights(graph), std::vector<std::string>{"deploy"});
    const auto &deploy = std::get<ConvolutionParams>(graph.layers[0].params);
    EXPECT_EQ(deploy.weight_filler.type, "xavier");
    EXPECT_EQ(deploy.bias_filler.type, "uniform");
    const auto &explicit_zero = std::get<ConvolutionParams>(graph.layers[1].params);
    EXPECT_EQ(explicit_zero.weight_filler.type, "constant");  // written in the prototxt: kept
    EXPECT_EQ(explicit_zero.bias_filler.type, "constant");
}

// Every field graph_json writes, non-default where it can be, so that a field the reader drops
// changes the text written again.
const char *kEveryLayerType =
    "name: \"every\"\ninput: \"data\"\ninput_shape { dim: 2 dim: 8 dim: 9 dim: 9 }\n"
    "layer { name: \"conv\" type: \"Convolution\" bottom: \"data\" top: \"conv\" convolution_param { num_output: 8"
    " bias_term: true kernel_h: 3 kernel_w: 2 stride_h: 2 stride_w: 1 pad_h: 1 pad_w: 2 dilation: 1 group: 2"
    " weight_filler { type: \"gaussian\" mean: 0.25 std: 0.5 } bias_filler { type: \"uniform\" min: -2 max: 3 } } }\n"
    "layer { name: \"relu\" type: \"ReLU\" bottom: \"conv\" top: \"conv\" relu_param { negative_slope: 0.125 } }\n"
    "layer { name: \"sig\" type: \"Sigmoid\" bottom: \"conv\" top: \"sig\" }\n"
    "layer { name: \"clip\" type: \"Clip\" bottom: \"sig\" top: \"clip\" clip_param { min: -0.5 max: 0.75 } }\n"
    "layer { name: \"split\" type: \"Split\" bottom: \"clip\" top: \"s1\" top: \"s2\" }\n"
    "layer { name: \"tanh\" type: \"TanH\" bottom: \"s1\" top: \"tanh\" }\n"
    "layer { name: \"sum\" type: \"Eltwise\" bottom: \"tanh\" bottom: \"s2\" top: \"sum\""
    " eltwise_param { operation: SUM coeff: 0.5 coeff: -1.5 } }\n"
    "layer { name: \"pool\" type: \"Pooling\" bottom: \"sum\" top: \"pool\""
    " pooling_param { pool: AVE kernel_h: 3 kernel_w: 2 stride_h: 2 stride_w: 1 pad_h: 1 pad_w: 1 } }\n"
    "layer { name: \"lrn\" type: \"LRN\" bottom: \"pool\" top: \"lrn\""
    " lrn_param { local_size: 3 alpha: 0.5 beta: 0.25 k: 2 norm_region: WITHIN_CHANNEL } }\n"
    "layer { name: \"bn\" type: \"BatchNorm\" bottom: \"lrn\" top: \"bn\" batch_norm_param { eps: 0.001 } }\n"
    "layer { name: \"scale\" type: \"Scale\" bottom: \"bn\" top: \"scale\""
    " scale_param { bias_term: true filler { type: \"constant\" value: 2 } bias_filler { type: \"xavier\" variance_norm: FAN_OUT } } }\n"
    "layer { name: \"drop\" type: \"Dropout\" bottom: \"scale\" top: \"scale\" dropout_param { dropout_ratio: 0.25 } }\n"
    "layer { name: \"flat\" type: \"Flatten\" bottom: \"scale\" top: \"flat\" flatten_param { axis: 1 end_axis: 2 } }\n"
    "layer { name: \"reshape\" type: \"Reshape\" bottom: \"flat\" top: \"reshape\""
    " reshape_param { shape { dim: 0 dim: -1 } axis: 0 num_axes: -1 } }\n"
    "layer { name: \"ip\" type: \"InnerProduct\" bottom: \"reshape\" top: \"ip\" inner_product_param { num_output: 6"
    " bias_term: false transpose: true weight_filler { type: \"msra\" variance_norm: AVERAGE } } }\n"
    "layer { name: \"ip2\" type: \"InnerProduct\" bottom: \"ip\" top: \"ip2\" inner_product_param { num_output: 6 } }\n"
    "layer { name: \"cat\" type: \"Concat\" bottom: \"ip\" bottom: \"ip2\" top: \"cat\" concat_param { axis: 1 } }\n"
    "layer { name: \"max\" type: \"Eltwise\" bottom: \"ip\" bottom: \"ip2\" top: \"max\" eltwise_param { operation: MAX } }\n"
    "layer { name: \"prob\" type: \"Softmax\" bottom: \"cat\" top: \"prob\" softmax_param { axis: 1 } }\n";

TEST(GraphJson, ReadsBackEveryFieldItWrites) {
    Graph graph = import_caffe_prototxt_text(kEveryLayerType, "every.prototxt", ImportOptions{});
    infer_shapes(graph);
    fuse_activations(graph);
    // What only ONNX models make: a pad layer, a quotient, asymmetric pooling pads, a
    // transposed GEMM input and pooling's other rules.
    for (Layer &layer : graph.layers) {
        if (auto *p = std::get_if<PoolingParams>(&layer.params)) {
            p->pad_bottom = 2, p->pad_right = 0, p->round_up = false, p->count_padding = false;
            p->last_window_rule_always = true, p->global_pooling = true;
        }
        if (auto *p = std::get_if<EltwiseParams>(&layer.params))
            if (p->operation == ops::EltwiseOperation::Max) p->operation = ops::EltwiseOperation::Quotient;
        if (auto *p = std::get_if<InnerProductParams>(&layer.params)) p->transpose_input = true, p->axis = 2;
        if (auto *p = std::get_if<BatchNormParams>(&layer.params)) p->use_global_stats = false;
    }
    Layer pad = graph.layers.back();
    pad.name = "pad", pad.type = "Pad", pad.params = PadParams{1, 2, 3, 4, -0.5f}, pad.weight_shapes.clear();
    pad.inputs = {graph.outputs[0]};
    pad.outputs = {graph.add_value("padded", {2, 12})};
    graph.layers.push_back(pad);
    graph.outputs = pad.outputs;

    const nlohmann::ordered_json written = graph_json(graph);
    const Graph read = graph_from_json(nlohmann::json::parse(graph_json_text(graph)));
    EXPECT_EQ(graph_json_text(read), graph_json_text(graph));
    EXPECT_EQ(read.layers.size(), graph.layers.size());
    EXPECT_EQ(read.layers[0].fused_layers, std::vector<std::string>{"relu"});
    for (const char *field : {"weight_filler", "bias_filler", "use_global_stats", "last_window_rule_always", "pads"})
        EXPECT_NE(graph_json_text(graph).find(std::string("\"") + field + "\""), std::string::npos) << field;
}

// The shipped networks read back to the same plan and the same seeded weights: what a tuning
// bundle's layer needs on the machine it travels to.
TEST(GraphJson, SharedNetworksReadBackToTheSamePlanAndWeights) {
    if (shared_models_dir().empty()) GTEST_SKIP() << "../shared/models is absent";
    for (const char *file : {"googlenet.prototxt", "resnet50.prototxt", "squeezenet_v1.1.prototxt", "lenet.prototxt"}) {
        ImportOptions batch1;
        batch1.batch = 1;
        Graph graph = load_shared(file, batch1);
        fill_untrained_weights(graph);
        fuse_activations(graph);
        const Graph read = graph_from_json(nlohmann::json::parse(graph_json_text(graph)));
        EXPECT_EQ(graph_json_text(read), graph_json_text(graph)) << file;
        const PlanTarget host = resolve_target("host").plan_target();
        const NetworkPlan before = plan_network(graph, "net", host), after = plan_network(read, "net", host);
        ASSERT_EQ(before.kernels.size(), after.kernels.size()) << file;
        for (size_t k = 0; k < before.kernels.size(); k++)
            EXPECT_EQ(before.kernels[k].signature(), after.kernels[k].signature()) << file;
        const std::vector<LayerWeights> a = seeded_weights(before, 3), b = seeded_weights(after, 3);
        ASSERT_EQ(a.size(), b.size()) << file;
        for (size_t l = 0; l < a.size(); l++) EXPECT_EQ(a[l].blobs, b[l].blobs) << file << " " << a[l].layer;
    }
}

TEST(GraphJson, MissingOrWrongFieldsNameTheLayer) {
    Graph graph = import_caffe_prototxt_text(kEveryLayerType, "every.prototxt", ImportOptions{});
    infer_shapes(graph);
    nlohmann::json json = nlohmann::json::parse(graph_json_text(graph));
    const auto message = [](const nlohmann::json &j) {
        try {
            graph_from_json(j);
        } catch (const CompileError &e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    nlohmann::json no_group = json;
    no_group["layers"][0]["params"].erase("group");
    EXPECT_EQ(message(no_group), "graph JSON: layer 'conv': no group of the right type");
    nlohmann::json unknown = json;
    unknown["layers"][1]["type"] = "Threshold";
    EXPECT_NE(message(unknown).find("has type 'Threshold', which cortado does not know"), std::string::npos);
    nlohmann::json dangling = json;
    dangling["layers"][1]["bottoms"] = {99};
    EXPECT_NE(message(dangling).find("reads value 99, which nothing makes"), std::string::npos) << message(dangling);
    EXPECT_NE(message(nlohmann::json::array()).find("graph JSON:"), std::string::npos);
}

// Constant folding at ONNX import (frontend/onnx_constants.h), against numpy's results.
OnnxTensor ints(Shape dims, std::vector<int64_t> values) {
    OnnxTensor t;
    t.dims = std::move(dims);
    t.integers = std::move(values);
    t.integer = true;
    return t;
}
OnnxTensor floats(Shape dims, std::vector<float> values) {
    OnnxTensor t;
    t.dims = std::move(dims);
    t.floats = std::move(values);
    return t;
}
onnx::NodeProto node_of(const std::string &op, const std::map<std::string, int64_t> &ints = {},
                        const std::map<std::string, std::vector<int64_t>> &lists = {}) {
    onnx::NodeProto node;
    node.set_op_type(op);
    for (const auto &[name, value] : ints) {
        onnx::AttributeProto *a = node.add_attribute();
        a->set_name(name);
        a->set_type(onnx::AttributeProto::INT);
        a->set_i(value);
    }
    for (const auto &[name, values] : lists) {
        onnx::AttributeProto *a = node.add_attribute();
        a->set_name(name);
        a->set_type(onnx::AttributeProto::INTS);
        for (int64_t v : values) a->add_ints(v);
    }
    return node;
}

TEST(OnnxFolding, SlicesGathersAndReshapesAsNumpyDoes) {
    const OnnxTensor data = ints({2, 5}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9});
    // data[:, ::-2] with an INT64_MIN end, as exporters write "to the start".
    const OnnxTensor starts = ints({1}, {-1}), ends = ints({1}, {std::numeric_limits<int64_t>::min()}),
                     axes = ints({1}, {1}), steps = ints({1}, {-2});
    OnnxTensor r = fold_constant(node_of("Slice"), 13, {&data, &starts, &ends, &axes, &steps});
    EXPECT_EQ(r.dims, (Shape{2, 3}));
    EXPECT_EQ(r.integers, (std::vector<int64_t>{4, 2, 0, 9, 7, 5}));
    // A start before the axis with a negative step clamps to 0, as ONNX's spec says (numpy's
    // slice would be empty); a step past the axis takes one element without overflowing.
    const OnnxTensor far = ints({1}, {-10}), back = ints({1}, {-1});
    r = fold_constant(node_of("Slice"), 13, {&data, &far, &ends, &axes, &back});
    EXPECT_EQ(r.dims, (Shape{2, 1}));
    EXPECT_EQ(r.integers, (std::vector<int64_t>{0, 5}));
    const OnnxTensor zero = ints({1}, {0}), huge = ints({1}, {std::numeric_limits<int64_t>::max()});
    r = fold_constant(node_of("Slice"), 13, {&data, &zero, &huge, &axes, &huge});
    EXPECT_EQ(r.integers, (std::vector<int64_t>{0, 5}));
    // data[1:, 1:INT64_MAX] with opset 1's attributes.
    r = fold_constant(node_of("Slice", {}, {{"starts", {1, 1}}, {"ends", {INT64_MAX, INT64_MAX}}}), 1, {&data});
    EXPECT_EQ(r.integers, (std::vector<int64_t>{6, 7, 8, 9}));
    // Gather with a negative index along axis 1, indices of shape 2x1.
    const OnnxTensor indices = ints({2, 1}, {-1, 0});
    r = fold_constant(node_of("Gather", {{"axis", 1}}), 13, {&data, &indices});
    EXPECT_EQ(r.dims, (Shape{2, 2, 1}));
    EXPECT_EQ(r.integers, (std::vector<int64_t>{4, 0, 9, 5}));
    // Unsqueeze at negative axes of the output (an input from opset 13), then Squeeze of all 1s.
    const OnnxTensor at = ints({2}, {0, -1});
    r = fold_constant(node_of("Unsqueeze"), 13, {&data, &at});
    EXPECT_EQ(r.dims, (Shape{1, 2, 5, 1}));
    r = fold_constant(node_of("Squeeze"), 13, {&r});
    EXPECT_EQ(r.dims, (Shape{2, 5}));
    // Transpose by default reverses the axes; Reshape copies a 0 and infers a -1.
    r = fold_constant(node_of("Transpose"), 13, {&data});
    EXPECT_EQ(r.integers, (std::vector<int64_t>{0, 5, 1, 6, 2, 7, 3, 8, 4, 9}));
    const OnnxTensor target = ints({3}, {0, -1, 1});
    r = fold_constant(node_of("Reshape"), 13, {&data, &target});
    EXPECT_EQ(r.dims, (Shape{2, 5, 1}));
    // Expand and arithmetic broadcast as numpy does.
    const OnnxTensor column = floats({2, 1}, {1.0f, 2.0f}), row = floats({3}, {10.0f, 20.0f, 30.0f});
    r = fold_constant(node_of("Add"), 13, {&column, &row});
    EXPECT_EQ(r.dims, (Shape{2, 3}));
    EXPECT_EQ(r.floats, (std::vector<float>{11, 21, 31, 12, 22, 32}));
    const OnnxTensor shape = ints({2}, {2, 3});
    r = fold_constant(node_of("Expand"), 13, {&column, &shape});
    EXPECT_EQ(r.floats, (std::vector<float>{1, 1, 1, 2, 2, 2}));
    // Range of floats, Concat of integers.
    const OnnxTensor start = floats({}, {1.0f}), limit = floats({}, {2.0f}), delta = floats({}, {0.25f});
    r = fold_constant(node_of("Range"), 13, {&start, &limit, &delta});
    EXPECT_EQ(r.floats, (std::vector<float>{1.0f, 1.25f, 1.5f, 1.75f}));
    const OnnxTensor a = ints({1}, {7}), b = ints({2}, {-1, 3});
    r = fold_constant(node_of("Concat", {{"axis", 0}}), 13, {&a, &b});
    EXPECT_EQ(r.integers, (std::vector<int64_t>{7, -1, 3}));
}

TEST(OnnxFolding, BadInputIsAnErrorNotACrash) {
    const OnnxTensor data = ints({4}, {1, 2, 3, 4}), big = ints({2}, {1 << 20, 1 << 20}), zero = ints({}, {0});
    const OnnxTensor far = ints({1}, {4}), two_minus = ints({2}, {-1, -1});
    EXPECT_THROW(fold_constant(node_of("Gather"), 13, {&data, &far}), FoldError);
    EXPECT_THROW(fold_constant(node_of("ConstantOfShape"), 13, {&big}), FoldError);
    EXPECT_THROW(fold_constant(node_of("Range"), 13, {&zero, &far, &zero}), FoldError);
    EXPECT_THROW(fold_constant(node_of("Reshape"), 13, {&data, &two_minus}), FoldError);
    EXPECT_THROW(fold_constant(node_of("Unsqueeze"), 13, {&data, &far}), FoldError);
    EXPECT_THROW(fold_constant(node_of("Transpose", {}, {{"perm", {1}}}), 13, {&data}), FoldError);
    EXPECT_THROW(fold_constant(node_of("Slice"), 13, {&data}), FoldError);
    const OnnxTensor scalar = ints({}, {3});
    EXPECT_THROW(fold_constant(node_of("Concat", {{"axis", 0}}), 13, {&scalar, &scalar}), FoldError);
    EXPECT_THROW(fold_constant(node_of("Squeeze", {}, {{"axes", {0}}}), 11, {&scalar}), FoldError);
    EXPECT_THROW(fold_constant(node_of("Gather"), 13, {&scalar, &zero}), FoldError);
    const OnnxTensor nan = floats({1}, {std::nanf("")});
    EXPECT_THROW(fold_constant(node_of("Reshape"), 13, {&data, &nan}), FoldError);
}

// The value of a kernel's knob, and where it came from.
std::pair<int, std::string> knob(const KernelInstance &k, const std::string &name) {
    for (size_t i = 0; i < k.choice.knobs.values.size(); i++)
        if (k.choice.knobs.values[i].first == name) return {k.choice.knobs.values[i].second, k.knob_sources[i].second};
    return {-1, "absent"};
}

Graph one_conv_graph(int group = 1) {
    Graph graph = import_caffe_prototxt_text(
        "input: \"data\"\ninput_shape { dim: 1 dim: 4 dim: 8 dim: 8 }\n"
        "layer { name: \"c\" type: \"Convolution\" bottom: \"data\" top: \"c\" convolution_param { num_output: 4 kernel_size: 3 group: " +
            std::to_string(group) + " } }\n",
        "knobs.prototxt", ImportOptions{});
    infer_shapes(graph);
    return graph;
}

TEST(Targets, DescriptionsCarryKnobTablesAndRooflines) {
    const std::string path =
        write_target("gpu",
                     "# a device\nhalide_target = x86-64-linux-cuda\n"
                     "knob = conv2d.rows=4  # tuned\nknob = conv2d.cols=2\npeak_gflops = 1000\nbandwidth_gbs = 50.5\n");
    const TargetDescription t = resolve_target(path);
    std::filesystem::remove(path);
    EXPECT_EQ(t.knobs, "conv2d.rows=4,conv2d.cols=2");
    EXPECT_EQ(t.schedule_family, "gpu");  // from the Halide string: the description names none
    EXPECT_EQ(t.peak_gflops, 1000);
    EXPECT_EQ(t.bandwidth_gbs, 50.5);
    EXPECT_NE(t.halide_target.find("cuda"), std::string::npos);
    EXPECT_EQ(resolve_target("cuda-h100").peak_gflops, 64400);  // the shipped description

    // The table reaches the conv kernel's choice (and so its signature), and the options' knobs,
    // stronger, win where they speak.
    const Graph graph = one_conv_graph();
    const NetworkPlan plain = plan_network(graph, "net", t.halide_target);
    const NetworkPlan tuned = plan_network(graph, "net", t.plan_target());
    EXPECT_EQ(knob(plain.kernels[0], "rows").second, "default rule");
    EXPECT_EQ(knob(tuned.kernels[0], "rows"), std::make_pair(4, std::string("target knobs")));
    EXPECT_NE(plain.kernels[0].signature(), tuned.kernels[0].signature());
    EXPECT_EQ(plain.kernels[0].op_signature(), tuned.kernels[0].op_signature());
    PlanOptions knobs;
    knobs.knobs = "conv2d.rows=5";
    knobs.knobs_source = "CORTADO_KNOBS";
    const NetworkPlan overridden = plan_network(graph, "net", t.plan_target(), knobs);
    EXPECT_EQ(knob(overridden.kernels[0], "rows"), std::make_pair(5, std::string("CORTADO_KNOBS")));
    EXPECT_EQ(knob(overridden.kernels[0], "cols"), std::make_pair(2, std::string("target knobs")));
    PlanTarget malformed(t.halide_target);
    malformed.knobs = "rows=4";
    EXPECT_THROW(plan_network(graph, "net", malformed), CompileError);
}

TEST(Targets, RegisterBudgetReachesTheConvScheduleAndTheCudaRuntime) {
    const std::string path = write_target("registers",
                                          "halide_target = x86-64-linux-cuda\n"
                                          "registers_per_thread = 96\nknob = conv2d.rows=4\n");
    const TargetDescription t = resolve_target(path);
    std::filesystem::remove(path);
    EXPECT_EQ(t.registers_per_thread, 96);
    EXPECT_EQ(resolve_target("cuda-h100").registers_per_thread, 128);  // the shipped description
    EXPECT_EQ(resolve_target("opencl-pocl").registers_per_thread, 0);

    const Graph graph = one_conv_graph();
    const NetworkPlan plan = plan_network(graph, "net", t.plan_target());
    EXPECT_EQ(plan.registers_per_thread, 96);
    EXPECT_EQ(knob(plan.kernels[0], "registers"), std::make_pair(96, std::string("default rule")));
    // The CUDA glue hands the budget to the runtime (the last field of the description); other
    // APIs have no cap to raise.
    EXPECT_NE(emit_glue(plan).find("halide_cuda_device_interface,\n    96,\n    \"\",\n    kFolds, 0,\n    nullptr,\n};"), std::string::npos)
        << emit_glue(plan);
    PlanTarget opencl = t.plan_target();
    opencl.halide_target = resolve_target("x86-64-linux-opencl").halide_target;
    EXPECT_NE(
        emit_glue(plan_network(graph, "net", opencl)).find("halide_opencl_device_interface,\n    0,\n    \"\",\n    kFolds, 0,\n    nullptr,\n};"),
        std::string::npos);
    // The runtime must grant what the kernels were finally scheduled for: a knob that overrides
    // the description's budget sets the cap too, and without any budget there is none.
    PlanOptions knobs;
    knobs.knobs = "conv2d.registers=160";
    knobs.knobs_source = "CORTADO_KNOBS";
    const NetworkPlan overridden = plan_network(graph, "net", t.plan_target(), knobs);
    EXPECT_EQ(overridden.registers_per_thread, 160);
    for (
        const auto &[bad, expected] : std::vector<std::pair<std::string, std::string>>{
            {"conv2d.registers=many", "knob values are whole numbers"},
            {"conv2d.registers=300",
             "layer 'c' (Convolution): CORTADO_KNOBS: conv2d knob registers = 300 is out of range: registers 16..255"}}) {
        knobs.knobs = bad;
        try {
            plan_network(graph, "net", t.plan_target(), knobs);
            ADD_FAILURE() << bad << " was accepted";
        } catch (const CompileError &e) {
            EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
        }
    }
    EXPECT_EQ(plan_network(graph, "net", t.halide_target).registers_per_thread, 0);
}

// An OpenCL description's compiler options reach the OpenCL glue (the description's last field)
// and no other API's; the shipped NVIDIA description raises the driver's register cap.
TEST(Targets, OpenClBuildOptionsReachTheOpenClRuntimeOnly) {
    const std::string path = write_target("options",
                                          "halide_target = x86-64-linux-opencl\n"
                                          "opencl_build_options = -cl-nv-maxrregcount=128 -D NAME=\"x\"\n");
    const TargetDescription t = resolve_target(path);
    std::filesystem::remove(path);
    EXPECT_EQ(t.opencl_build_options, "-cl-nv-maxrregcount=128 -D NAME=\"x\"");
    EXPECT_EQ(resolve_target("opencl-nvidia").opencl_build_options, "-cl-nv-maxrregcount=128");
    EXPECT_EQ(resolve_target("opencl-pocl").opencl_build_options, "") << "PoCL's compiler rejects NVIDIA's options";
    const Graph graph = one_conv_graph();
    const std::string glue = emit_glue(plan_network(graph, "net", t.plan_target()));
    EXPECT_NE(
        glue.find("halide_opencl_device_interface,\n    0,\n    \"-cl-nv-maxrregcount=128 -D NAME=\\\"x\\\"\",\n    kFolds, 0,\n    nullptr,\n};"),
        std::string::npos)
        << glue;
    PlanTarget cpu = t.plan_target();
    cpu.halide_target = resolve_target("host-generic").halide_target;
    cpu.family = "";
    EXPECT_NE(emit_glue(plan_network(graph, "net", cpu)).find("nullptr,\n    0,\n    \"\",\n    kFolds, 0,\n    nullptr,\n};"), std::string::npos);
}

TEST(Targets, CodeThisCpuCannotExecuteIsNamedWithTheMissingInstructionSet) {
    const Halide::Target host = Halide::get_host_target();
    EXPECT_EQ(why_cannot_run_here(host.to_string()), "");
    EXPECT_NE(why_cannot_run_here("arm-64-linux").find("cannot execute code for arm-64-linux"), std::string::npos);
    // Knights Landing's AVX-512 subset, or on a Knights Landing Intel's APX: no CPU has both.
    const auto lacking =
        host.has_feature(Halide::Target::AVX512_KNL) ? Halide::Target::X86APX : Halide::Target::AVX512_KNL;
    ASSERT_FALSE(host.has_feature(lacking));
    const std::string why = why_cannot_run_here(host.with_feature(lacking).to_string());
    EXPECT_NE(why.find("lacks " + Halide::Target::feature_to_name(lacking)), std::string::npos) << why;
}

TEST(Targets, MachineModelsComeFromTheDescriptionTheHostsCachesOrTheInstructionSet) {
    const std::string described = write_target(
        "model", "halide_target = x86-64-linux-avx-avx2-f16c-fma-sse41\nl2_kib = 256\nfma_units = 1\n");
    const schedules::MachineModel m = resolve_target(described).machine;
    std::filesystem::remove(described);
    EXPECT_EQ(m.source, "description");
    EXPECT_EQ(m.l2_kib, 256);
    EXPECT_EQ(m.fma_units, 1);
    EXPECT_EQ(m.vector_registers, 16) << "a key left out keeps the instruction set's figure";
    EXPECT_EQ(resolve_plan_target(resolve_target("xeon-2core-avx512-spr").plan_target()).model().l2_kib, 2048);
    const schedules::MachineModel avx512 = resolve_target("x86-64-linux-avx-avx2-avx512-f16c-fma-sse41").machine;
    EXPECT_EQ(avx512.vector_registers, 32);
    EXPECT_EQ(avx512.source, "instruction set");
    EXPECT_EQ(resolve_target("x86-64-linux-tune_znver4-avx-avx2-avx512-f16c-fma-sse41").machine.fma_units, 1)
        << "Zen 4 splits a 512-bit FMA over its two 256-bit pipes";
    EXPECT_EQ(resolve_target("arm-64-linux").machine.vector_registers, 32);
    // The host's caches, where Linux reports them, are its own.
    const schedules::MachineModel host = resolve_target("host").machine;
    std::ifstream l1("/sys/devices/system/cpu/cpu0/cache/index0/size");
    if (l1) {
        EXPECT_EQ(host.source, "detected");
    }
    EXPECT_GT(host.l1d_kib, 0);
    EXPECT_GT(host.l2_kib, host.l1d_kib);
    // `info --plan` prints the model the rules used.
    const NetworkPlan plan = plan_network(one_conv_graph(), "net", resolve_target("xeon-2core-avx512-spr").plan_target());
    EXPECT_EQ(plan.machine.l1d_kib, 48);
    const auto message = [](const std::string &text) {
        const std::string path = write_target("bad-model", text);
        std::string what = "no error";
        try {
            resolve_target(path);
        } catch (const CompileError &e) {
            what = e.what();
        }
        std::filesystem::remove(path);
        return what;
    };
    EXPECT_NE(message("halide_target = x86-64-linux-avx2\nl2_kib = lots\n").find("l2_kib must be a positive number"),
              std::string::npos);
    EXPECT_NE(message("halide_target = x86-64-linux-avx2\nl1d_kib = 1.5\n").find("l1d_kib must be a whole number"),
              std::string::npos);
    EXPECT_NE(message("halide_target = x86-64-linux-avx2\nvector_registers = 4\n").find("at least 8"),
              std::string::npos);
    EXPECT_NE(message("halide_target = x86-64-linux-cuda\nl1d_kib = 64\n").find("describe CPUs"), std::string::npos);
}

TEST(Targets, MalformedDescriptionsNameTheFileAndLine) {
    auto message = [](const std::string &name) {
        try {
            resolve_target(name);
        } catch (const CompileError &e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    const std::string no_target = write_target("empty", "peak_gflops = 5\n");
    EXPECT_NE(message(no_target).find("no halide_target"), std::string::npos) << message(no_target);
    const std::string bad_line = write_target("line", "halide_target = x86-64-linux\nthis line has no value\n");
    EXPECT_NE(message(bad_line).find(bad_line + ":2: expected key = value"), std::string::npos) << message(bad_line);
    const std::string bad_peak = write_target("peak", "halide_target = x86-64-linux\npeak_gflops = fast\n");
    EXPECT_NE(message(bad_peak).find("peak_gflops must be a positive number"), std::string::npos) << message(bad_peak);
    EXPECT_NE(message("/nowhere/missing.target").find("no such target description"), std::string::npos);
    const std::string typo = write_target("typo", "halide_target = x86-64-linux\npeak_gflop = 5\n");
    EXPECT_NE(message(typo).find(typo + ":2: unknown key 'peak_gflop'"), std::string::npos) << message(typo);
    const std::string twice = write_target("twice", "halide_target = x86-64-linux\nhalide_target = arm-64-linux\n");
    EXPECT_NE(message(twice).find("halide_target given twice"), std::string::npos) << message(twice);
    const std::string invalid = write_target("invalid", "halide_target = z80-8-cpm\n");
    EXPECT_NE(message(invalid).find(invalid + ": invalid halide_target 'z80-8-cpm'"), std::string::npos)
        << message(invalid);
    for (const std::string &path : {typo, twice, invalid}) std::filesystem::remove(path);
    EXPECT_NE(message("sparc-32-solaris").find("unknown target"), std::string::npos);
    for (const std::string &path : {no_target, bad_line, bad_peak}) std::filesystem::remove(path);
    for (const auto &[halide, options, expected] : std::vector<std::tuple<std::string, std::string, std::string>>{
             {"x86-64-linux-cuda", "-cl-nv-maxrregcount=128", "opencl_build_options needs an OpenCL halide_target"},
             {"x86-64-linux-opencl", "", "opencl_build_options is empty"}}) {
        const std::string bad =
            write_target("options", "halide_target = " + halide + "\nopencl_build_options = " + options + "\n");
        EXPECT_NE(message(bad).find(expected), std::string::npos) << options << ": " << message(bad);
        std::filesystem::remove(bad);
    }
    for (const std::string value : {"0", "2.5", "5000", "all"}) {
        const std::string bad_cores = write_target("cores", "halide_target = x86-64-linux-avx2\ncores = " + value + "\n");
        const std::string expected = value == "0" || value == "all" ? "cores must be a positive number"
                                                                    : "cores must be a whole number from 1 to 4096";
        EXPECT_NE(message(bad_cores).find(expected), std::string::npos) << value << ": " << message(bad_cores);
        std::filesystem::remove(bad_cores);
    }
    const std::string eight = write_target("eight", "halide_target = x86-64-linux-avx2\ncores = 8\n");
    EXPECT_EQ(resolve_plan_target(resolve_target(eight).plan_target()).cores, 8);
    std::filesystem::remove(eight);
    EXPECT_EQ(resolve_plan_target(resolve_target("x86-64-linux-avx2").plan_target()).cores, schedules::kAssumedCores)
        << "a Halide string says nothing of cores";
    {
        // `host` counts the threads the runtime's pool will start, which HL_NUM_THREADS sets.
        const char *before = std::getenv("HL_NUM_THREADS");
        const std::string saved = before ? before : "";
        ::setenv("HL_NUM_THREADS", "3", 1);
        EXPECT_EQ(resolve_target("host").cores, 3);
        if (before) ::setenv("HL_NUM_THREADS", saved.c_str(), 1);
        else ::unsetenv("HL_NUM_THREADS");
        EXPECT_GE(resolve_target("host").cores, 1);
    }
    for (const std::string value : {"300", "12", "96.5", "1e10", "many"}) {
        const std::string bad_registers =
            write_target("registers", "halide_target = x86-64-linux-cuda\nregisters_per_thread = " + value + "\n");
        const std::string expected = value == "many" ? "registers_per_thread must be a positive number"
                                                     : "registers_per_thread must be a whole number from 16 to 255";
        EXPECT_NE(message(bad_registers).find(expected), std::string::npos) << value << ": " << message(bad_registers);
        std::filesystem::remove(bad_registers);
    }
}

}  // namespace
}  // namespace cortado::testing
