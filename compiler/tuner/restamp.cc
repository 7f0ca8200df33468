#include "compiler/tuner/restamp.h"

#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <vector>

#include "compiler/schedule_version.h"
#include "compiler/tuning_db.h"
#include "frontend/compile_error.h"

namespace cortado {

int restamp_tuning_records(const std::string &file) {
    const TuningDbFile db = read_tuning_records(file, true);
    for (const std::string &w : db.warnings) std::cerr << "cortado: warning: " << w << "\n";
    std::vector<std::string> lines;
    {
        std::ifstream in(file);
        for (std::string line; std::getline(in, line);) lines.push_back(line);
    }
    struct Moved {
        int count = 0;
        std::set<std::string> from;
        std::string to;
    };
    std::map<std::string, Moved> moved;  // "op variant" -> what moved
    int total = 0;
    for (const TuningRecord &r : db.records) {
        if (r.schedule_version.empty()) continue;  // hand-written: no version to move
        std::string current;
        try {
            current = schedule_version(r.op, r.variant);
        } catch (const CompileError &) {
            std::cerr << "cortado: warning: " << r.where << ": this build has no variant " << r.variant << " of "
                      << r.op << ": left as it is\n";
            continue;
        }
        if (current == r.schedule_version) continue;
        // read_tuning_records names each record FILE:LINE, counting from 1.
        const size_t line = std::stoul(r.where.substr(r.where.rfind(':') + 1)) - 1;
        const std::string old_field = "\"schedule_version\":\"" + r.schedule_version + "\"";
        const size_t at = line < lines.size() ? lines[line].find(old_field) : std::string::npos;
        if (at == std::string::npos)
            throw CompileError(r.where + ": no " + old_field +
                               " on the line; not restamped (write the record on one line)");
        lines[line].replace(at, old_field.size(), "\"schedule_version\":\"" + current + "\"");
        Moved &m = moved[r.op + " " + r.variant];
        m.count++;
        m.from.insert(r.schedule_version);
        m.to = current;
        total++;
    }
    if (total > 0) {
        std::ofstream out(file, std::ios::trunc);
        for (const std::string &line : lines) out << line << "\n";
        if (!out.flush()) throw CompileError(file + ": cannot write the tuning database");
    }
    std::cout << "cortado tune: restamped " << total << " of " << db.records.size() << " records in " << file << "\n";
    for (const auto &[variant, m] : moved) {
        std::string from;
        for (const std::string &v : m.from) from += (from.empty() ? "" : ", ") + v;
        std::cout << "  " << variant << ": " << m.count << " from " << from << " to " << m.to << "\n";
    }
    return total;
}

}  // namespace cortado
