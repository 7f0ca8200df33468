#include "frontend/npy.h"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <limits>
#include <optional>
#include <utility>

#include "runtime/file_bytes.h"

namespace cortado {
namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicSize = 6;
constexpr size_t kAlignment = 64;  // numpy.save pads the header so data starts 64-byte aligned

// Product of the dimensions, or nullopt if it does not fit in int64. A zero dimension makes the
// array empty however large the others are, so it is looked for before checking for overflow.
std::optional<uint64_t> element_count(const std::vector<int64_t> &shape) {
    if (std::find(shape.begin(), shape.end(), 0) != shape.end()) return 0;
    uint64_t count = 1;
    for (int64_t dim : shape) {
        if (count > uint64_t(std::numeric_limits<int64_t>::max()) / uint64_t(dim)) {
            return std::nullopt;
        }
        count *= uint64_t(dim);
    }
    return count;
}

std::string shape_string(const std::vector<int64_t> &shape) {
    std::string text = "(";
    for (size_t i = 0; i < shape.size(); ++i) {
        if (i) text += ", ";
        text += std::to_string(shape[i]);
    }
    // Python spells a one-element tuple with a trailing comma.
    if (shape.size() == 1) text += ',';
    return text + ")";
}

// The header is a Python dict literal. Only the subset numpy.save produces (and the `L` suffix
// Python 2 put on shape integers) is accepted, with keys in any order and free whitespace.
class HeaderParser {
  public:
    explicit HeaderParser(std::string text) : text_(std::move(text)) {}

    bool parse(std::vector<int64_t> *shape, std::string *error) {
        bool has_descr = false, has_fortran = false, has_shape = false;
        skip_space();
        if (!consume('{')) return fail("header is not a dict", error);
        for (;;) {
            skip_space();
            if (consume('}')) break;
            std::string key;
            if (!quoted(&key)) return fail("header has a malformed key", error);
            skip_space();
            if (!consume(':')) return fail("header has no ':' after '" + key + "'", error);
            skip_space();
            bool *seen;
            if (key == "descr") {
                seen = &has_descr;
                std::string descr;
                if (!quoted(&descr)) return fail("descr is not a plain dtype string", error);
                if (descr != "<f4") {
                    return fail("dtype '" + descr +
                                    "' is not supported; expected '<f4' "
                                    "(little-endian float32)",
                                error);
                }
            } else if (key == "fortran_order") {
                seen = &has_fortran;
                if (consume_word("True")) {
                    return fail("fortran_order is True; only C-order arrays are supported", error);
                }
                if (!consume_word("False")) return fail("fortran_order is not a bool", error);
            } else if (key == "shape") {
                seen = &has_shape;
                if (!parse_shape(shape, error)) return false;
            } else {
                return fail("header has unexpected key '" + key + "'", error);
            }
            if (*seen) return fail("header repeats key '" + key + "'", error);
            *seen = true;
            skip_space();
            if (consume('}')) break;
            if (!consume(',')) return fail("header dict entries are not comma-separated", error);
        }
        skip_space();
        if (pos_ != text_.size()) return fail("header has text after the dict", error);
        if (!has_descr) return fail("header has no 'descr'", error);
        if (!has_fortran) return fail("header has no 'fortran_order'", error);
        if (!has_shape) return fail("header has no 'shape'", error);
        return true;
    }

  private:
    static bool fail(const std::string &message, std::string *error) {
        *error = message;
        return false;
    }

    void skip_space() {
        while (pos_ < text_.size() &&
               (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\n' || text_[pos_] == '\r')) {
            ++pos_;
        }
    }

    bool consume(char c) {
        if (pos_ < text_.size() && text_[pos_] == c) {
            ++pos_;
            return true;
        }
        return false;
    }

    bool consume_word(const char *word) {
        const size_t length = std::strlen(word);
        if (text_.compare(pos_, length, word) != 0) return false;
        pos_ += length;
        return true;
    }

    // A '...' or "..." literal without escapes, which no key or dtype string needs.
    bool quoted(std::string *value) {
        if (pos_ >= text_.size() || (text_[pos_] != '\'' && text_[pos_] != '"')) return false;
        const char quote = text_[pos_];
        const size_t close = text_.find(quote, pos_ + 1);
        if (close == std::string::npos) return false;
        const std::string body = text_.substr(pos_ + 1, close - pos_ - 1);
        if (body.find('\\') != std::string::npos) return false;
        *value = body;
        pos_ = close + 1;
        return true;
    }

    bool parse_shape(std::vector<int64_t> *shape, std::string *error) {
        std::vector<int64_t> dims;
        if (!consume('(')) return fail("shape is not a tuple", error);
        for (;;) {
            skip_space();
            if (consume(')')) break;
            if (pos_ >= text_.size()) return fail("shape tuple is not closed", error);
            if (text_[pos_] == '-') {
                return fail("shape has a negative dimension", error);
            }
            if (text_[pos_] < '0' || text_[pos_] > '9') {
                return fail("shape has a non-integer dimension", error);
            }
            int64_t dim = 0;
            while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') {
                const int digit = text_[pos_++] - '0';
                if (dim > (std::numeric_limits<int64_t>::max() - digit) / 10) {
                    return fail("shape dimension does not fit in 64 bits", error);
                }
                dim = dim * 10 + digit;
            }
            consume('L');
            dims.push_back(dim);
            skip_space();
            if (consume(')')) break;
            if (!consume(',')) return fail("shape tuple is malformed", error);
        }
        *shape = std::move(dims);
        return true;
    }

    std::string text_;
    size_t pos_ = 0;
};

bool parse_named(const std::string &source, const uint8_t *bytes, size_t size, std::vector<int64_t> *shape,
                 std::vector<float> *data, std::string *error) {
    auto fail = [&](const std::string &message) {
        *error = source + ": " + message;
        return false;
    };
    if (size < kMagicSize + 2 || std::memcmp(bytes, kMagic, kMagicSize) != 0) {
        return fail("not a .npy file (bad magic)");
    }
    const uint8_t major = bytes[kMagicSize], minor = bytes[kMagicSize + 1];
    if (major < 1 || major > 3 || minor != 0) {
        return fail("unsupported .npy format version " + std::to_string(major) + "." + std::to_string(minor));
    }
    // Version 1.0 has a 2-byte header length; 2.0 and 3.0 widen it to 4 bytes.
    const size_t length_size = major == 1 ? 2 : 4;
    const size_t prefix = kMagicSize + 2 + length_size;
    if (size < prefix) return fail("truncated header");
    size_t header_length = 0;
    for (size_t i = 0; i < length_size; ++i) {
        header_length |= size_t(bytes[kMagicSize + 2 + i]) << (8 * i);
    }
    if (header_length > size - prefix) {
        return fail("header length " + std::to_string(header_length) + " exceeds the " + std::to_string(size - prefix) +
                    " bytes after the prefix");
    }
    std::vector<int64_t> parsed_shape;
    std::string header_error;
    HeaderParser header(std::string(reinterpret_cast<const char *>(bytes + prefix), header_length));
    if (!header.parse(&parsed_shape, &header_error)) return fail(header_error);

    const std::optional<uint64_t> count = element_count(parsed_shape);
    if (!count || *count > std::numeric_limits<uint64_t>::max() / sizeof(float)) {
        return fail("shape " + shape_string(parsed_shape) + " has too many elements");
    }
    const size_t data_offset = prefix + header_length;
    const uint64_t expected = *count * sizeof(float);
    const uint64_t available = size - data_offset;
    if (available < expected) {
        return fail("truncated data: shape " + shape_string(parsed_shape) + " needs " + std::to_string(expected) +
                    " bytes but " + std::to_string(available) + " follow the header");
    }
    if (available > expected) {
        return fail(std::to_string(available - expected) + " unexpected bytes after the " + std::to_string(expected) +
                    " bytes of data for shape " + shape_string(parsed_shape));
    }

    std::vector<float> values(static_cast<size_t>(*count));
    const uint8_t *p = bytes + data_offset;
    for (float &value : values) {
        const uint32_t bits = uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
        std::memcpy(&value, &bits, sizeof value);
        p += 4;
    }
    *shape = std::move(parsed_shape);
    *data = std::move(values);
    return true;
}

}  // namespace

bool parse_npy(const uint8_t *bytes, size_t size, std::vector<int64_t> *shape, std::vector<float> *data,
               std::string *error) {
    return parse_named("<memory>", bytes, size, shape, data, error);
}

bool read_npy(const std::string &path, std::vector<int64_t> *shape, std::vector<float> *data, std::string *error) {
    std::string bytes;
    if (!read_file_bytes(path, &bytes, error)) return false;
    return parse_named(path, reinterpret_cast<const uint8_t *>(bytes.data()), bytes.size(), shape, data, error);
}

bool write_npy(const std::string &path, const std::vector<int64_t> &shape, const float *data, std::string *error) {
    for (int64_t dim : shape) {
        if (dim < 0) {
            *error = path + ": cannot write shape " + shape_string(shape) + " with a negative dimension";
            return false;
        }
    }
    const std::optional<uint64_t> count = element_count(shape);
    if (!count || *count > std::numeric_limits<uint64_t>::max() / sizeof(float)) {
        *error = path + ": shape " + shape_string(shape) + " has too many elements";
        return false;
    }

    std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': " + shape_string(shape) + ", }";
    const size_t prefix = kMagicSize + 2 + 2;
    // The terminating '\n' counts towards the padded length.
    header.append(kAlignment - (prefix + header.size() + 1) % kAlignment, ' ');
    header += '\n';
    if (header.size() > std::numeric_limits<uint16_t>::max()) {
        *error = path + ": shape " + shape_string(shape) + " is too long for a version 1.0 header";
        return false;
    }

    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    if (!out) {
        *error = path + ": cannot open file for writing";
        return false;
    }
    const char version_and_length[4] = {1, 0, char(header.size() & 0xff), char(header.size() >> 8)};
    out.write(kMagic, kMagicSize);
    out.write(version_and_length, sizeof version_and_length);
    out.write(header.data(), std::streamsize(header.size()));

    // Serialized through a buffer so the file is little-endian whatever the host's byte order.
    std::vector<char> buffer;
    constexpr uint64_t kChunkElements = 1 << 16;
    for (uint64_t begin = 0; begin < *count && out; begin += kChunkElements) {
        const uint64_t n = std::min(kChunkElements, *count - begin);
        buffer.resize(size_t(n) * 4);
        for (uint64_t i = 0; i < n; ++i) {
            uint32_t bits;
            std::memcpy(&bits, &data[begin + i], sizeof bits);
            for (int b = 0; b < 4; ++b) buffer[size_t(i) * 4 + b] = char(bits >> (8 * b));
        }
        out.write(buffer.data(), std::streamsize(buffer.size()));
    }
    out.close();
    if (!out) {
        *error = path + ": write failed";
        return false;
    }
    return true;
}

}  // namespace cortado
