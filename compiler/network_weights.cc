#include "compiler/network_weights.h"

#include <map>

#include "frontend/compile_error.h"
#include "runtime/caffemodel_reader.h"
#include "runtime/fillers.h"

namespace cortado {

std::vector<LayerWeights> seeded_weights(const NetworkPlan &plan, uint64_t seed) {
    std::vector<LayerWeights> layers;
    std::map<std::string, size_t> index;
    for (const PlannedBlob &blob : plan.blobs) {
        if (blob.filler.type == FillerType::Unsupported)
            throw CompileError("layer '" + blob.layer + "' blob " + std::to_string(blob.index) +
                               " uses a filler cortado does not implement; give --weights");
        if (blob.filler.type == FillerType::Folded) continue;  // no blob of the model: the runtime makes it
        auto it = index.find(blob.layer);
        if (it == index.end()) {
            it = index.emplace(blob.layer, layers.size()).first;
            layers.push_back(LayerWeights{blob.layer, {}, {}});
        }
        LayerWeights &layer = layers[it->second];
        if (int(layer.blobs.size()) <= blob.index) {
            layer.blobs.resize(blob.index + 1);
            layer.shapes.resize(blob.index + 1);
        }
        layer.shapes[blob.index] = blob.shape;
        layer.blobs[blob.index] = fill_blob(blob.filler, blob.shape, seed, blob.layer, blob.index);
    }
    return layers;
}

std::vector<LayerWeights> read_weights(const Graph &graph, const std::string &path) {
    std::vector<LayerBlobs> file;
    std::string error;
    if (!read_caffemodel(path, &file, &error)) throw CompileError(error);
    std::map<std::string, const LayerBlobs *> by_name;
    for (const LayerBlobs &l : file) by_name[l.name] = &l;
    std::vector<LayerWeights> layers;
    for (const Layer &layer : graph.layers) {
        if (layer.weight_shapes.empty()) continue;
        auto it = by_name.find(layer.name);
        if (it == by_name.end() || it->second->blobs.size() < layer.weight_shapes.size())
            throw CompileError(path + ": layer '" + layer.name + "' has no weights (or too few blobs)");
        LayerWeights weights{layer.name, layer.weight_shapes, {}};
        for (size_t b = 0; b < layer.weight_shapes.size(); b++) {
            const Blob &blob = it->second->blobs[b];
            if (int64_t(blob.data.size()) != element_count(layer.weight_shapes[b]))
                throw CompileError(path + ": layer '" + layer.name + "' blob " + std::to_string(b) +
                                   ": expected shape " + shape_to_string(layer.weight_shapes[b]) + ", found " +
                                   shape_to_string(blob.shape));
            weights.blobs.push_back(blob.data);
        }
        layers.push_back(std::move(weights));
    }
    return layers;
}

reference::WeightMap reference_weights(const std::vector<LayerWeights> &weights) {
    reference::WeightMap map;
    for (const LayerWeights &layer : weights) {
        std::vector<reference::Tensor> blobs;
        for (size_t b = 0; b < layer.blobs.size(); b++)
            blobs.push_back(
                reference::Tensor{layer.shapes[b], std::vector<double>(layer.blobs[b].begin(), layer.blobs[b].end())});
        map[layer.layer] = std::move(blobs);
    }
    return map;
}

}  // namespace cortado
