// The precision a command compiles for, from its `--precision fp32|fp16|int8` and `--qparams
// FILE` (the calibration `cortado quantize` writes, compiler/qparams.h): int8 runs the file's
// convolutions in int8 (frontend/int8_precision.h), everything else in fp32; without a file, the
// convolutions a quantized model quantizes the input of. fp16 runs every convolution the target
// can in half precision (frontend/fp16_precision.h).
#pragma once

#include "compiler/target_description.h"
#include "frontend/import_caffe.h"
#include "tools/cli_args.h"

namespace cortado {

// Sets `options`' int8 layers, those a quantized model gives as `target` can run them. Throws
// UsageError for a precision without what it needs, and CompileError for a file that cannot be read.
void apply_cli_precision(const CliArgs &cli, ImportOptions &options, const TargetDescription &target);

}  // namespace cortado
