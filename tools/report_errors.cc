#include "tools/report_errors.h"

#include <exception>
#include <iostream>

#include "Halide.h"
#include "compiler/target_description.h"
#include "frontend/compile_error.h"
#include "tools/cli_args.h"

namespace cortado {

int run_reporting_errors(const std::function<int()> &command) {
    try {
        return command();
    } catch (const UsageError &e) {
        std::cerr << "cortado: error: " << e.what() << " (cortado help for usage)\n";
        return 2;
    } catch (const UnknownTarget &e) {
        std::cerr << "cortado: error: " << e.what() << "\n";
        return 2;
    } catch (const CompileError &e) {
        std::cerr << "cortado: error: " << e.what() << "\n";
        return 1;
    } catch (const std::exception &e) {
        std::cerr << "cortado: internal error: " << e.what() << "\n";
    } catch (const Halide::Error &e) {
        std::cerr << "cortado: internal error in Halide: " << e.what() << "\n";
    } catch (...) {
        std::cerr << "cortado: internal error: an exception of unknown type\n";
    }
    return 3;
}

}  // namespace cortado
