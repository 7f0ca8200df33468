#include "runtime/fillers.h"

#include <cmath>

namespace cortado {
namespace {

// splitmix64: tiny, well-mixed and identical on every compiler, unlike std:: distributions.
class Random {
  public:
    explicit Random(uint64_t seed) : state_(seed) {}
    uint64_t next() {
        uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
    double uniform01() { return double(next() >> 11) * (1.0 / 9007199254740992.0); }
    double uniform(double lo, double hi) { return lo + (hi - lo) * uniform01(); }
    double gaussian(double mean, double std) {
        // Box-Muller; 1 - u keeps the logarithm finite.
        const double u = 1.0 - uniform01(), v = uniform01();
        return mean + std * std::sqrt(-2.0 * std::log(u)) * std::cos(6.283185307179586 * v);
    }

  private:
    uint64_t state_;
};

uint64_t stream_seed(uint64_t seed, const std::string &layer, int blob_index) {
    uint64_t h = 1469598103934665603ull;  // FNV-1a over the layer name
    for (unsigned char ch : layer) h = (h ^ ch) * 1099511628211ull;
    return seed * 0x9E3779B97F4A7C15ull ^ h ^ (uint64_t(blob_index) << 56);
}

}  // namespace

bool filler_type_from_name(const std::string &name, FillerType *type) {
    if (name == "constant") *type = FillerType::Constant;
    else if (name == "gaussian") *type = FillerType::Gaussian;
    else if (name == "uniform") *type = FillerType::Uniform;
    else if (name == "xavier") *type = FillerType::Xavier;
    else if (name == "msra") *type = FillerType::Msra;
    else return false;
    return true;
}

std::vector<float> fill_blob(const FillerSpec &spec, const std::vector<int64_t> &shape, uint64_t seed,
                             const std::string &layer, int blob_index) {
    int64_t count = 1;
    for (int64_t d : shape) count *= d;
    std::vector<float> data(static_cast<size_t>(count));
    Random random(stream_seed(seed, layer, blob_index));
    const double fan_in = shape.empty() ? 1.0 : double(count) / double(shape[0]);
    const double fan_out = shape.size() < 2 ? 1.0 : double(count) / double(shape[1]);
    double n = fan_in;
    if (spec.variance_norm == VarianceNorm::FanOut) n = fan_out;
    if (spec.variance_norm == VarianceNorm::Average) n = (fan_in + fan_out) / 2.0;
    for (float &v : data) {
        switch (spec.type) {
        case FillerType::Unsupported:
        case FillerType::Constant:
        case FillerType::Folded: v = spec.value; break;
        case FillerType::Gaussian: v = float(random.gaussian(spec.mean, spec.std)); break;
        case FillerType::Uniform: v = float(random.uniform(spec.min, spec.max)); break;
        case FillerType::Xavier: {
            const double scale = std::sqrt(3.0 / n);
            v = float(random.uniform(-scale, scale));
            break;
        }
        case FillerType::Msra: v = float(random.gaussian(0.0, std::sqrt(2.0 / n))); break;
        case FillerType::BatchNormMean: v = float(random.gaussian(0.0, 0.1)); break;
        case FillerType::BatchNormVariance: v = float(random.uniform(0.5, 1.5)); break;
        }
    }
    return data;
}

}  // namespace cortado
