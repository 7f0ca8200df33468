// What the compiler takes from the machine it runs on: where it keeps compiled kernels, where its
// data is, which compilers build network libraries. The library reads no environment variable:
// the CLI fills these in once, from CORTADO_CACHE, CORTADO_HOME, CXX, CORTADO_CROSS_PREFIX and
// CORTADO_DEBUG_STMT and CORTADO_DEBUG_ASM (tools/cli_environment.h), before it plans or builds anything; another
// program that links the compiler sets what it needs, or keeps the defaults.
#pragma once

#include <string>

namespace cortado {

struct HostSettings {
    std::string kernel_cache_dir;  // empty: ~/.cache/cortado (home from the password database)
    std::string install_prefix;    // empty: the folder above the running executable's
    std::string host_cxx;          // empty: c++
    std::string cross_prefix;      // empty: the GNU prefix known for the target (aarch64-linux-gnu-)
    bool write_stmt = false;       // also write Halide's .stmt beside each compiled kernel object
    bool write_assembly = false;   // also write its assembly (.s; for HVX offload, the DSP's too)
};

// Set before the first plan or build: the install prefix is resolved once, on first use.
void set_host_settings(const HostSettings &settings);
const HostSettings &host_settings();

}  // namespace cortado
