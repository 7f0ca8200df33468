#include "runtime/caffemodel_reader.h"

#include "runtime/file_bytes.h"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <limits>
#include <utility>

namespace cortado {
namespace {

enum WireType : uint32_t {
    kVarint = 0,
    kFixed64 = 1,
    kLengthDelimited = 2,
    kStartGroup = 3,
    kEndGroup = 4,
    kFixed32 = 5,
};

// Field numbers from Caffe's caffe.proto.
constexpr uint32_t kNetLayer = 100;   // NetParameter.layer (LayerParameter)
constexpr uint32_t kNetLayersV1 = 2;  // NetParameter.layers (V1LayerParameter)
constexpr uint32_t kLayerName = 1;
constexpr uint32_t kLayerBlobs = 7;
constexpr uint32_t kV1LayerV0 = 1;  // V1LayerParameter.layer: a nested V0 layer holding the blobs
constexpr uint32_t kV1LayerName = 4;
constexpr uint32_t kV1LayerBlobs = 6;
constexpr uint32_t kBlobNum = 1;
constexpr uint32_t kBlobChannels = 2;
constexpr uint32_t kBlobHeight = 3;
constexpr uint32_t kBlobWidth = 4;
constexpr uint32_t kBlobData = 5;
constexpr uint32_t kBlobShape = 7;
constexpr uint32_t kBlobDoubleData = 8;
constexpr uint32_t kShapeDim = 1;

// Where and why decoding stopped; the caller adds the layer context and the file name.
struct Failure {
    size_t offset = 0;
    std::string message;
};

bool fail(Failure *failure, size_t offset, std::string message) {
    failure->offset = offset;
    failure->message = std::move(message);
    return false;
}

// Offsets are absolute within the whole file so that errors point at a byte a hex dump shows.
class Reader {
  public:
    Reader(const uint8_t *file, size_t begin, size_t end) : file_(file), pos_(begin), end_(end) {}

    bool done() const { return pos_ >= end_; }
    size_t offset() const { return pos_; }

    bool varint(uint64_t *value, Failure *failure) {
        const size_t start = pos_;
        uint64_t result = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            if (pos_ >= end_) return fail(failure, start, "truncated varint");
            const uint8_t byte = file_[pos_++];
            result |= uint64_t(byte & 0x7f) << shift;
            if (!(byte & 0x80)) {
                *value = result;
                return true;
            }
        }
        return fail(failure, start, "varint longer than 10 bytes");
    }

    bool fixed32(uint32_t *value, Failure *failure) {
        if (end_ - pos_ < 4) return fail(failure, pos_, "truncated 32-bit value");
        *value = 0;
        for (int i = 0; i < 4; ++i) *value |= uint32_t(file_[pos_ + i]) << (8 * i);
        pos_ += 4;
        return true;
    }

    bool fixed64(uint64_t *value, Failure *failure) {
        if (end_ - pos_ < 8) return fail(failure, pos_, "truncated 64-bit value");
        *value = 0;
        for (int i = 0; i < 8; ++i) *value |= uint64_t(file_[pos_ + i]) << (8 * i);
        pos_ += 8;
        return true;
    }

    bool tag(uint32_t *field, uint32_t *wire_type, Failure *failure) {
        const size_t start = pos_;
        uint64_t tag;
        if (!varint(&tag, failure)) return false;
        if (tag > std::numeric_limits<uint32_t>::max() || (tag >> 3) == 0) {
            return fail(failure, start, "invalid field tag " + std::to_string(tag));
        }
        *field = uint32_t(tag >> 3);
        *wire_type = uint32_t(tag & 7);
        return true;
    }

    // Splits off a length-delimited payload as its own reader, so nested messages cannot run past
    // their parent.
    bool length_delimited(Reader *payload, Failure *failure) {
        const size_t start = pos_;
        uint64_t length;
        if (!varint(&length, failure)) return false;
        if (length > end_ - pos_) {
            return fail(failure, start,
                        "length " + std::to_string(length) + " exceeds the " + std::to_string(end_ - pos_) +
                            " bytes remaining (truncated file?)");
        }
        *payload = Reader(file_, pos_, pos_ + size_t(length));
        pos_ += size_t(length);
        return true;
    }

    bool skip(uint32_t field, uint32_t wire_type, size_t tag_offset, Failure *failure) {
        uint64_t ignored;
        uint32_t ignored32;
        Reader payload = *this;
        switch (wire_type) {
        case kVarint: return varint(&ignored, failure);
        case kFixed64: return fixed64(&ignored, failure);
        case kLengthDelimited: return length_delimited(&payload, failure);
        case kFixed32: return fixed32(&ignored32, failure);
        case kStartGroup:
        case kEndGroup:
            return fail(failure, tag_offset,
                        "field " + std::to_string(field) + " uses protobuf groups, which caffe.proto never does");
        default:
            return fail(failure, tag_offset,
                        "field " + std::to_string(field) + " has invalid wire type " + std::to_string(wire_type));
        }
    }

    std::string string_value() const { return std::string(reinterpret_cast<const char *>(file_ + pos_), end_ - pos_); }

  private:
    const uint8_t *file_;
    size_t pos_, end_;
};

bool wrong_wire_type(Failure *failure, size_t tag_offset, const char *what, uint32_t wire_type) {
    return fail(failure, tag_offset, std::string(what) + " has unexpected wire type " + std::to_string(wire_type));
}

bool parse_dim(Reader *reader, std::vector<int64_t> *dims, Failure *failure) {
    const size_t offset = reader->offset();
    uint64_t raw;
    if (!reader->varint(&raw, failure)) return false;
    const int64_t dim = static_cast<int64_t>(raw);
    if (dim < 0) return fail(failure, offset, "negative dimension " + std::to_string(dim));
    dims->push_back(dim);
    return true;
}

bool parse_shape(Reader reader, std::vector<int64_t> *dims, Failure *failure) {
    while (!reader.done()) {
        const size_t tag_offset = reader.offset();
        uint32_t field, wire_type;
        if (!reader.tag(&field, &wire_type, failure)) return false;
        if (field != kShapeDim) {
            if (!reader.skip(field, wire_type, tag_offset, failure)) return false;
        } else if (wire_type == kVarint) {
            if (!parse_dim(&reader, dims, failure)) return false;
        } else if (wire_type == kLengthDelimited) {
            // caffe.proto declares dim packed, but protobuf readers must accept both encodings.
            Reader values = reader;
            if (!reader.length_delimited(&values, failure)) return false;
            while (!values.done()) {
                if (!parse_dim(&values, dims, failure)) return false;
            }
        } else {
            return wrong_wire_type(failure, tag_offset, "BlobShape.dim", wire_type);
        }
    }
    return true;
}

// Appends the floats of one `data` field occurrence, packed or not.
bool parse_floats(Reader *reader, uint32_t wire_type, size_t tag_offset, std::vector<float> *out, Failure *failure) {
    uint32_t bits;
    if (wire_type == kFixed32) {
        if (!reader->fixed32(&bits, failure)) return false;
        float value;
        std::memcpy(&value, &bits, sizeof value);
        out->push_back(value);
        return true;
    }
    if (wire_type != kLengthDelimited) {
        return wrong_wire_type(failure, tag_offset, "BlobProto.data", wire_type);
    }
    Reader values = *reader;
    if (!reader->length_delimited(&values, failure)) return false;
    const size_t begin = values.offset();
    if ((reader->offset() - begin) % 4 != 0) {
        return fail(failure, tag_offset, "packed float data length is not a multiple of 4");
    }
    out->reserve(out->size() + (reader->offset() - begin) / 4);
    while (!values.done()) {
        if (!values.fixed32(&bits, failure)) return false;
        float value;
        std::memcpy(&value, &bits, sizeof value);
        out->push_back(value);
    }
    return true;
}

// Appends the values of one `double_data` field occurrence, narrowed to float.
bool parse_doubles(Reader *reader, uint32_t wire_type, size_t tag_offset, std::vector<float> *out, Failure *failure) {
    uint64_t bits;
    if (wire_type == kFixed64) {
        if (!reader->fixed64(&bits, failure)) return false;
        double value;
        std::memcpy(&value, &bits, sizeof value);
        out->push_back(float(value));
        return true;
    }
    if (wire_type != kLengthDelimited) {
        return wrong_wire_type(failure, tag_offset, "BlobProto.double_data", wire_type);
    }
    Reader values = *reader;
    if (!reader->length_delimited(&values, failure)) return false;
    const size_t begin = values.offset();
    if ((reader->offset() - begin) % 8 != 0) {
        return fail(failure, tag_offset, "packed double data length is not a multiple of 8");
    }
    out->reserve(out->size() + (reader->offset() - begin) / 8);
    while (!values.done()) {
        if (!values.fixed64(&bits, failure)) return false;
        double value;
        std::memcpy(&value, &bits, sizeof value);
        out->push_back(float(value));
    }
    return true;
}

std::string shape_string(const std::vector<int64_t> &shape) {
    if (shape.empty()) return "()";
    std::string text;
    for (size_t i = 0; i < shape.size(); ++i) {
        if (i) text += 'x';
        text += std::to_string(shape[i]);
    }
    return text;
}

bool parse_blob(Reader reader, Blob *blob, Failure *failure) {
    const size_t blob_offset = reader.offset();
    bool has_shape = false, has_legacy = false;
    int64_t legacy[4] = {0, 0, 0, 0};  // num, channels, height, width; proto default 0
    std::vector<float> doubles;
    while (!reader.done()) {
        const size_t tag_offset = reader.offset();
        uint32_t field, wire_type;
        if (!reader.tag(&field, &wire_type, failure)) return false;
        switch (field) {
        case kBlobShape: {
            if (wire_type != kLengthDelimited) {
                return wrong_wire_type(failure, tag_offset, "BlobProto.shape", wire_type);
            }
            Reader shape = reader;
            if (!reader.length_delimited(&shape, failure)) return false;
            // A repeated singular message merges, which for BlobShape concatenates dims.
            if (!parse_shape(shape, &blob->shape, failure)) return false;
            has_shape = true;
            break;
        }
        case kBlobData:
            if (!parse_floats(&reader, wire_type, tag_offset, &blob->data, failure)) return false;
            break;
        case kBlobDoubleData:
            if (!parse_doubles(&reader, wire_type, tag_offset, &doubles, failure)) return false;
            break;
        case kBlobNum:
        case kBlobChannels:
        case kBlobHeight:
        case kBlobWidth: {
            if (wire_type != kVarint) {
                return wrong_wire_type(failure, tag_offset, "BlobProto legacy dimension", wire_type);
            }
            uint64_t raw;
            if (!reader.varint(&raw, failure)) return false;
            const int64_t dim = static_cast<int64_t>(raw);
            if (dim < 0 || dim > std::numeric_limits<int32_t>::max()) {
                return fail(failure, tag_offset, "legacy dimension " + std::to_string(dim) + " is out of range");
            }
            legacy[field - kBlobNum] = dim;
            has_legacy = true;
            break;
        }
        default:
            if (!reader.skip(field, wire_type, tag_offset, failure)) return false;
        }
    }
    if (!doubles.empty()) {
        if (!blob->data.empty()) {
            return fail(failure, blob_offset, "blob has both float data and double_data");
        }
        blob->data = std::move(doubles);
    }
    if (!has_shape && has_legacy) blob->shape.assign(legacy, legacy + 4);
    if (!has_shape && !has_legacy) return true;

    // A zero dimension makes the blob empty however large the others are, so it is looked for
    // before the product is checked for overflow.
    const std::vector<int64_t> &shape = blob->shape;
    uint64_t count = std::find(shape.begin(), shape.end(), 0) != shape.end() ? 0 : 1;
    for (size_t i = 0; i < shape.size() && count != 0; ++i) {
        if (count > std::numeric_limits<uint64_t>::max() / uint64_t(shape[i])) {
            return fail(failure, blob_offset, "shape " + shape_string(shape) + " has too many elements");
        }
        count *= uint64_t(shape[i]);
    }
    if (count != blob->data.size()) {
        return fail(failure, blob_offset,
                    "shape " + shape_string(shape) + " has " + std::to_string(count) + " elements but the blob holds " +
                        std::to_string(blob->data.size()) + " values");
    }
    return true;
}

// Layer names come from the file; keep hostile bytes from breaking the one-line error.
std::string printable(const std::string &text) {
    static const char kHex[] = "0123456789abcdef";
    std::string out;
    for (unsigned char c : text) {
        if (c >= 0x20 && c < 0x7f && c != '\\') {
            out += char(c);
        } else {
            out += "\\x";
            out += kHex[c >> 4];
            out += kHex[c & 15];
        }
    }
    return out;
}

// Before its name has been read (or when it has none) a layer is known only by its position.
std::string describe_layer(size_t index, const std::string &name) {
    if (name.empty()) return "layer #" + std::to_string(index);
    return "layer '" + printable(name) + "'";
}

bool parse_layer(Reader reader, bool v1, LayerBlobs *layer, Failure *failure) {
    const uint32_t name_field = v1 ? kV1LayerName : kLayerName;
    const uint32_t blobs_field = v1 ? kV1LayerBlobs : kLayerBlobs;
    // Blobs are decoded after the whole layer is scanned so that their errors can name the layer
    // even if a writer put `name` after `blobs`.
    std::vector<Reader> blob_readers;
    while (!reader.done()) {
        const size_t tag_offset = reader.offset();
        uint32_t field, wire_type;
        if (!reader.tag(&field, &wire_type, failure)) return false;
        if (v1 && field == kV1LayerV0) {
            return fail(failure, tag_offset,
                        "V0 layer format is not supported; convert the file with Caffe's "
                        "upgrade_net_proto_binary");
        }
        if (field != name_field && field != blobs_field) {
            if (!reader.skip(field, wire_type, tag_offset, failure)) return false;
            continue;
        }
        if (wire_type != kLengthDelimited) {
            return wrong_wire_type(failure, tag_offset, field == name_field ? "layer name" : "layer blob", wire_type);
        }
        Reader payload = reader;
        if (!reader.length_delimited(&payload, failure)) return false;
        if (field == name_field) {
            layer->name = payload.string_value();
        } else {
            blob_readers.push_back(payload);
        }
    }
    layer->blobs.resize(blob_readers.size());
    for (size_t i = 0; i < blob_readers.size(); ++i) {
        if (!parse_blob(blob_readers[i], &layer->blobs[i], failure)) {
            failure->message = "blob " + std::to_string(i) + ": " + failure->message;
            return false;
        }
    }
    return true;
}

bool parse_net(const uint8_t *bytes, size_t size, std::vector<LayerBlobs> *layers, Failure *failure) {
    Reader reader(bytes, 0, size);
    bool seen_v1 = false, seen_v2 = false;
    while (!reader.done()) {
        const size_t tag_offset = reader.offset();
        uint32_t field, wire_type;
        if (!reader.tag(&field, &wire_type, failure)) return false;
        if (field != kNetLayer && field != kNetLayersV1) {
            if (!reader.skip(field, wire_type, tag_offset, failure)) return false;
            continue;
        }
        const bool v1 = field == kNetLayersV1;
        if (wire_type != kLengthDelimited) {
            return wrong_wire_type(failure, tag_offset, v1 ? "NetParameter.layers" : "NetParameter.layer", wire_type);
        }
        (v1 ? seen_v1 : seen_v2) = true;
        if (seen_v1 && seen_v2) {
            // Caffe refuses such a net too: the two lists have no defined relative order.
            return fail(failure, tag_offset, "net mixes V2 'layer' and V1 'layers' entries");
        }
        Reader payload = reader;
        LayerBlobs layer;
        if (!reader.length_delimited(&payload, failure) || !parse_layer(payload, v1, &layer, failure)) {
            failure->message = describe_layer(layers->size(), layer.name) + ": " + failure->message;
            return false;
        }
        layers->push_back(std::move(layer));
    }
    return true;
}

bool parse_named(const std::string &source, const uint8_t *bytes, size_t size, std::vector<LayerBlobs> *layers,
                 std::string *error) {
    std::vector<LayerBlobs> parsed;
    Failure failure;
    if (!parse_net(bytes, size, &parsed, &failure)) {
        *error = source + ": " + failure.message + " (at byte offset " + std::to_string(failure.offset) + ")";
        return false;
    }
    *layers = std::move(parsed);
    return true;
}

}  // namespace

bool parse_caffemodel(const uint8_t *bytes, size_t size, std::vector<LayerBlobs> *layers, std::string *error) {
    return parse_named("<memory>", bytes, size, layers, error);
}

bool read_caffemodel(const std::string &path, std::vector<LayerBlobs> *layers, std::string *error) {
    std::string bytes;
    if (!read_file_bytes(path, &bytes, error)) return false;
    // A NetParameter's field 1 is a string (tag 0x0a); 0x08 is how an ONNX ModelProto begins.
    if (!bytes.empty() && bytes[0] == 0x08) {
        *error = path + ": is an ONNX model, not a caffemodel (give it as the network: it carries its weights)";
        return false;
    }
    if (parse_named(path, reinterpret_cast<const uint8_t *>(bytes.data()), bytes.size(), layers, error)) return true;
    // A binary caffemodel is mostly float bytes; text that fails to parse was never one.
    const size_t head = std::min<size_t>(bytes.size(), 4096);
    const bool text = head > 0 && std::all_of(bytes.begin(), bytes.begin() + head, [](char c) {
                          return c == '\n' || c == '\r' || c == '\t' || (static_cast<unsigned char>(c) >= 32);
                      });
    if (text)
        *error = path + ": is not a binary caffemodel (it looks like text" +
                 (bytes.find("layer") != std::string::npos ? std::string(", a prototxt?") : std::string()) + ")";
    return false;
}

}  // namespace cortado
