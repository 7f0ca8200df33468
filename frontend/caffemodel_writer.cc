#include "frontend/caffemodel_writer.h"

#include <fstream>

#include "frontend/caffe.pb.h"
#include "frontend/compile_error.h"

namespace cortado {

void write_caffemodel(const std::string &path, const std::string &net_name, const std::vector<LayerWeights> &layers) {
    caffe::NetParameter net;
    net.set_name(net_name);
    for (const LayerWeights &weights : layers) {
        caffe::LayerParameter *layer = net.add_layer();
        layer->set_name(weights.layer);
        for (size_t b = 0; b < weights.blobs.size(); b++) {
            caffe::BlobProto *blob = layer->add_blobs();
            for (int64_t d : weights.shapes[b]) blob->mutable_shape()->add_dim(d);
            blob->mutable_data()->Add(weights.blobs[b].begin(), weights.blobs[b].end());
        }
    }
    std::ofstream file(path, std::ios::binary | std::ios::trunc);
    if (!file || !net.SerializeToOstream(&file) || !file.flush())
        throw CompileError(path + ": cannot write the weights file");
}

}  // namespace cortado
