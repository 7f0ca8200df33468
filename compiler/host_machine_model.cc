#include "compiler/host_machine_model.h"

#include <filesystem>
#include <fstream>

namespace cortado {
namespace fs = std::filesystem;

namespace {

std::string first_line(const fs::path &file) {
    std::ifstream in(file);
    std::string line;
    std::getline(in, line);
    return line;
}

// "48K" or "1024K" or "32M" -> KiB; 0 where it is neither.
int kib_of(const std::string &size) {
    try {
        size_t used = 0;
        const long value = std::stol(size, &used);
        const std::string unit = size.substr(used);
        if (unit == "K") return int(value);
        if (unit == "M") return int(value * 1024);
    } catch (const std::exception &) {}
    return 0;
}

}  // namespace

schedules::MachineModel host_machine_model(const std::string &halide_target) {
    schedules::MachineModel model = schedules::instruction_set_machine_model(halide_target);
    int found = 0;
    std::error_code ec;
    for (const auto &entry : fs::directory_iterator("/sys/devices/system/cpu/cpu0/cache", ec)) {
        if (entry.path().filename().string().rfind("index", 0) != 0) continue;
        const std::string level = first_line(entry.path() / "level"), type = first_line(entry.path() / "type");
        const int kib = kib_of(first_line(entry.path() / "size"));
        if (kib <= 0) continue;
        if (level == "1" && type == "Data") model.l1d_kib = kib, found++;
        else if (level == "2" && type == "Unified") model.l2_kib = kib, found++;
        else if (level == "3" && type == "Unified") model.l3_kib = kib, found++;
    }
    model.source = found > 0 ? "detected" : "instruction set (no cache sizes from the operating system)";
    return model;
}

}  // namespace cortado
