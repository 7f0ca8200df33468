// The calibration file (`cortado quantize ... -o NET.qparams`, read by `--qparams` of compile,
// run, bench and info): which convolutions run in int8 and how each quantizes its input. JSON:
//   {"format": "cortado-qparams", "version": 1, "network": NAME, "method": "minmax",
//    "images": N, "layers": {"conv1": {"input": "data", "min": -1.9, "max": 2.6,
//                                       "scale": 0.0176, "zero_point": 108}, ...},
//    "fp32_layers": {"conv2_dw": "depthwise (one input channel per group)"}}
// min and max are the calibrated range (after the method's clipping); scale and zero point are
// what the kernels use (ops/conv2d_int8.h).
#pragma once

#include <map>
#include <string>

#include "frontend/layer_params.h"

namespace cortado {

struct Int8LayerCalibration {
    std::string input;  // the blob it reads
    double min = 0, max = 0;
    Int8Input quantization;
};

struct QuantizationParams {
    std::string network, method;
    int images = 0;
    std::map<std::string, Int8LayerCalibration> layers;
    std::map<std::string, std::string> fp32_layers;  // convolutions left in fp32, and why
};

// Throws CompileError naming the file and the entry for anything malformed.
QuantizationParams read_qparams(const std::string &path);
// The same from the file's text; errors name `path`.
QuantizationParams parse_qparams(const std::string &text, const std::string &path);
void write_qparams(const QuantizationParams &q, const std::string &path);

// The int8 layers as the frontend takes them (ImportOptions::int8_layers).
std::map<std::string, Int8Input> int8_layers(const QuantizationParams &q);

}  // namespace cortado
