#include "tools/cli_precision.h"

#include "compiler/int8_support.h"
#include "compiler/qparams.h"

namespace cortado {

void apply_cli_precision(const CliArgs &cli, ImportOptions &options, const TargetDescription &target) {
    const std::string precision = cli.get("precision", cli.has("qparams") ? "int8" : "fp32");
    if (precision == "fp32") {
        if (cli.has("qparams")) throw UsageError("--qparams goes with --precision int8, not fp32");
        return;
    }
    if (precision == "fp16") {
        if (cli.has("qparams")) throw UsageError("--qparams goes with --precision int8, not fp16");
        options.fp16 = true;
        options.fp16_refusal = fp16_refusal_for(target.plan_target());
        return;
    }
    if (precision != "int8")
        throw UsageError("--precision " + precision + ": give fp32, fp16 or int8 (auto is not built yet)");
    options.int8_weight_levels = int8_weight_levels(target.plan_target());
    if (!cli.has("qparams")) {  // the model's own QuantizeLinear nodes say how
        options.int8_from_model = true;
        options.int8_refusal = int8_refusal_for(target.plan_target());
        return;
    }
    const std::string path = cli.get("qparams");
    options.int8_layers = int8_layers(read_qparams(path));
    options.int8_source = path;
    if (options.int8_layers.empty()) throw CompileError(path + ": no layer to run in int8");
}

}  // namespace cortado
