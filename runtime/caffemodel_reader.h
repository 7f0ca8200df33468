// Reads the learned blobs out of a binary .caffemodel without linking protobuf: the runtime only
// needs layer names and float tensors, so a small wire-format decoder is cheaper than carrying
// libprotobuf and caffe.proto into every generated pipeline's dependencies.
//
// Both NetParameter encodings Caffe still loads are understood: V2 (`layer`, field 100) and V1
// (`layers`, field 2). The pre-2014 V0 encoding is rejected; Caffe's upgrade_net_proto_binary
// converts such files.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace cortado {

struct Blob {
    // Empty when the file gives neither `shape` nor the legacy num/channels/height/width; `data`
    // is then kept as written and its size is the only shape information there is.
    std::vector<int64_t> shape;
    std::vector<float> data;  // double_data is narrowed to float
};

struct LayerBlobs {
    std::string name;
    std::vector<Blob> blobs;  // in Caffe's blob order; empty for layers without learned blobs
};

// On success replaces *layers with the file's layers, in file order. On malformed, truncated or
// unsupported content returns false, leaves *layers alone and sets *error to one line naming the
// file and, where they apply, the layer and the byte offset. Every length in
// the file is checked against the bytes that remain, so hostile input can neither read out of
// bounds nor make the reader allocate more than the file's own size.
bool read_caffemodel(const std::string &path, std::vector<LayerBlobs> *layers, std::string *error);
// The same decoder over a buffer; errors name the source "<memory>".
bool parse_caffemodel(const uint8_t *bytes, size_t size, std::vector<LayerBlobs> *layers, std::string *error);

}  // namespace cortado
