#include "compiler/install_layout.h"

#include <unistd.h>

#include <filesystem>

#include "compiler/host_settings.h"
#include "frontend/compile_error.h"

namespace fs = std::filesystem;

namespace cortado {

namespace {

fs::path running_executable() {
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (ec)
        throw CompileError(
            "cannot tell where this program is (/proc/self/exe): set CORTADO_HOME to cortado's install prefix");
    return exe;
}

}  // namespace

std::string install_prefix() {
    static const std::string prefix = [] {
        const std::string &home = host_settings().install_prefix;
        const fs::path root = !home.empty() ? fs::path(home) : running_executable().parent_path().parent_path();
        if (!fs::is_directory(root / "share" / "cortado" / "targets"))
            throw CompileError("cortado's data is not at " + (root / "share" / "cortado").string() +
                               (!home.empty() ? " (CORTADO_HOME=" + home + ")"
                                              : ": set CORTADO_HOME to the prefix cortado was installed into"));
        return root.string();
    }();
    return prefix;
}

std::string data_dir() { return (fs::path(install_prefix()) / "share" / "cortado").string(); }

std::string runtime_library() { return (fs::path(install_prefix()) / "lib" / "libcortado_runtime.a").string(); }

std::string halide_include_dir() { return (fs::path(data_dir()) / "halide-include").string(); }

std::string shared_file(const std::string &relative, const std::string &option) {
    const fs::path file = fs::path(data_dir()) / "shared" / relative;
    if (!fs::exists(file))
        throw CompileError("no " + relative + " beside this cortado (" + file.string() + "): give " + option);
    return file.string();
}

}  // namespace cortado
