#include "frontend/upgrade_v1.h"

#include <map>

#include "frontend/compile_error.h"

namespace cortado {
namespace {

// Caffe's V1 enum -> V2 type string (as in Caffe's UpgradeV1LayerType).
std::string v2_type_name(caffe::V1LayerParameter::LayerType type) {
    using T = caffe::V1LayerParameter;
    static const std::map<int, std::string> kNames = {
        {T::ABSVAL, "AbsVal"},
        {T::ACCURACY, "Accuracy"},
        {T::ARGMAX, "ArgMax"},
        {T::BNLL, "BNLL"},
        {T::CONCAT, "Concat"},
        {T::CONTRASTIVE_LOSS, "ContrastiveLoss"},
        {T::CONVOLUTION, "Convolution"},
        {T::DATA, "Data"},
        {T::DECONVOLUTION, "Deconvolution"},
        {T::DROPOUT, "Dropout"},
        {T::DUMMY_DATA, "DummyData"},
        {T::EUCLIDEAN_LOSS, "EuclideanLoss"},
        {T::ELTWISE, "Eltwise"},
        {T::EXP, "Exp"},
        {T::FLATTEN, "Flatten"},
        {T::HDF5_DATA, "HDF5Data"},
        {T::HDF5_OUTPUT, "HDF5Output"},
        {T::HINGE_LOSS, "HingeLoss"},
        {T::IM2COL, "Im2col"},
        {T::IMAGE_DATA, "ImageData"},
        {T::INFOGAIN_LOSS, "InfogainLoss"},
        {T::INNER_PRODUCT, "InnerProduct"},
        {T::LRN, "LRN"},
        {T::MEMORY_DATA, "MemoryData"},
        {T::MULTINOMIAL_LOGISTIC_LOSS, "MultinomialLogisticLoss"},
        {T::MVN, "MVN"},
        {T::POOLING, "Pooling"},
        {T::POWER, "Power"},
        {T::RELU, "ReLU"},
        {T::SIGMOID, "Sigmoid"},
        {T::SIGMOID_CROSS_ENTROPY_LOSS, "SigmoidCrossEntropyLoss"},
        {T::SILENCE, "Silence"},
        {T::SOFTMAX, "Softmax"},
        {T::SOFTMAX_LOSS, "SoftmaxWithLoss"},
        {T::SPLIT, "Split"},
        {T::SLICE, "Slice"},
        {T::TANH, "TanH"},
        {T::WINDOW_DATA, "WindowData"},
        {T::THRESHOLD, "Threshold"},
    };
    auto it = kNames.find(type);
    return it == kNames.end() ? "" : it->second;
}

}  // namespace

caffe::LayerParameter upgrade_v1_layer(const caffe::V1LayerParameter &v1, const SourceLocation &where) {
    caffe::LayerParameter layer;
    layer.set_name(v1.name());
    std::string type = v2_type_name(v1.type());
    if (type.empty())
        throw CompileError(where.to_string() + ": layer '" + v1.name() + "' has V1 type number " +
                           std::to_string(v1.type()) + ", which has no V2 equivalent");
    layer.set_type(type);
    for (const auto &b : v1.bottom()) layer.add_bottom(b);
    for (const auto &t : v1.top()) layer.add_top(t);
    for (const auto &r : v1.include()) *layer.add_include() = r;
    for (const auto &r : v1.exclude()) *layer.add_exclude() = r;
    for (const auto &b : v1.blobs()) *layer.add_blobs() = b;
    if (v1.has_concat_param()) *layer.mutable_concat_param() = v1.concat_param();
    if (v1.has_convolution_param()) *layer.mutable_convolution_param() = v1.convolution_param();
    if (v1.has_dropout_param()) *layer.mutable_dropout_param() = v1.dropout_param();
    if (v1.has_eltwise_param()) *layer.mutable_eltwise_param() = v1.eltwise_param();
    if (v1.has_inner_product_param()) *layer.mutable_inner_product_param() = v1.inner_product_param();
    if (v1.has_lrn_param()) *layer.mutable_lrn_param() = v1.lrn_param();
    if (v1.has_pooling_param()) *layer.mutable_pooling_param() = v1.pooling_param();
    if (v1.has_relu_param()) *layer.mutable_relu_param() = v1.relu_param();
    if (v1.has_softmax_param()) *layer.mutable_softmax_param() = v1.softmax_param();
    return layer;
}

}  // namespace cortado
