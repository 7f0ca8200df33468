#include "tools/bench/bench_cases.h"

#include <cstdio>
#include <fstream>
#include <sstream>
#include <utility>

#include "frontend/compile_error.h"

namespace cortado {

std::vector<ConvShape> conv_set(const std::string &csv, int64_t batch, bool quick, bool with_overfeat) {
    std::ifstream file(csv);
    if (!file) throw CompileError(csv + ": cannot open the convolution set");
    std::vector<ConvShape> shapes;
    std::string line;
    std::getline(file, line);  // header
    while (std::getline(file, line)) {
        ConvShape s{};
        const int fields = std::sscanf(line.c_str(), "%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d", &s.batch,
                                       &s.in_channels, &s.in_h, &s.in_w, &s.out_channels, &s.kernel_h, &s.kernel_w,
                                       &s.stride_h, &s.stride_w, &s.pad_h, &s.pad_w, &s.out_h, &s.out_w, &s.group);
        if (fields < 13 || s.group < 1 || s.in_channels % s.group || s.out_channels % s.group)
            throw CompileError(csv + ": malformed row '" + line + "'");
        if (batch == 0 || s.batch == batch) shapes.push_back(s);
    }
    // The Overfeat layers of the GTC 2015 talk, batch 1.
    if (with_overfeat && (batch == 0 || batch == 1)) {
        shapes.push_back({1, 3, 221, 221, 96, 7, 7, 2, 2, 0, 0, 108, 108});
        shapes.push_back({1, 96, 36, 36, 256, 7, 7, 1, 1, 0, 0, 30, 30});
        for (auto [in, out] : {std::pair{256, 512}, {512, 512}, {512, 1024}, {1024, 1024}})
            shapes.push_back({1, in, 15, 15, out, 3, 3, 1, 1, 1, 1, 15, 15});
    }
    if (shapes.empty()) throw CompileError(csv + ": no convolution matches (check --batch)");
    if (quick) {
        std::vector<ConvShape> few;
        for (size_t i = 0; i < shapes.size(); i += 16) few.push_back(shapes[i]);
        if ((shapes.size() - 1) % 16 != 0) few.push_back(shapes.back());
        return few;
    }
    return shapes;
}

std::string conv_prototxt(const ConvShape &s) {
    std::ostringstream p;
    p << "input: \"data\"\ninput_shape { dim: " << s.batch << " dim: " << s.in_channels << " dim: " << s.in_h
      << " dim: " << s.in_w << " }\n"
      << "layer { name: \"conv\" type: \"Convolution\" bottom: \"data\" top: \"conv\" convolution_param {"
      << " num_output: " << s.out_channels << " kernel_h: " << s.kernel_h << " kernel_w: " << s.kernel_w
      << " stride_h: " << s.stride_h << " stride_w: " << s.stride_w << " pad_h: " << s.pad_h << " pad_w: " << s.pad_w
      << " group: " << s.group
      << " weight_filler { type: \"gaussian\" std: 0.1 } bias_filler { type: \"uniform\" min: -1 max: 1 } } }\n";
    return p.str();
}

std::string conv_name(const ConvShape &s) {
    char text[128];
    std::snprintf(text, sizeof text, "b%d %d>%d %dx%d s%d p%d%s on %dx%d", s.batch, s.in_channels, s.out_channels,
                  s.kernel_h, s.kernel_w, s.stride_h, s.pad_h,
                  s.group > 1 ? (" g" + std::to_string(s.group)).c_str() : "", s.in_h, s.in_w);
    return text;
}

std::vector<int> sgemm_sizes(bool quick) {
    std::vector<int> sizes = {128, 256, 512, 1024, 2048};
    if (!quick) sizes.push_back(4096);
    return sizes;
}

std::string sgemm_prototxt(int n) {
    const std::string size = std::to_string(n);
    return "input: \"data\"\ninput_shape { dim: " + size + " dim: " + size +
           " }\nlayer { name: \"gemm\" type: \"InnerProduct\" bottom: \"data\" top: \"c\" "
           "inner_product_param { num_output: " +
           size + " bias_term: false weight_filler { type: \"gaussian\" } } }\n";
}

double conv_gflop(const ConvShape &s) {
    return 2e-9 * s.batch * s.out_channels * s.out_h * s.out_w * (s.in_channels / s.group) * s.kernel_h * s.kernel_w;
}

double conv_megabytes(const ConvShape &s) {
    return 4e-6 * (double(s.batch) * s.in_channels * s.in_h * s.in_w +
                   double(s.out_channels) * (s.in_channels / s.group) * s.kernel_h * s.kernel_w + s.out_channels +
                   double(s.batch) * s.out_channels * s.out_h * s.out_w);
}

double sgemm_gflop(int n) { return 2e-9 * n * double(n) * n; }

double sgemm_megabytes(int n) { return 4e-6 * 3 * double(n) * n; }

}  // namespace cortado
