// The schedule families by name. Adding a family: a folder schedules/<family>/ with a space.h
// and a bindings.cc, and a line in families.cc (docs/architecture.md lists the rest).
#pragma once

#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "schedules/space.h"

namespace cortado::schedules {

namespace detail {
// Defined in families.cc, so that only that file compiles the families' spaces: every rule and
// knob space is inline code in the family headers, which each file including them would compile.
std::map<std::string, FamilySpace> &family_table();
}  // namespace detail

inline const std::map<std::string, FamilySpace> &families() { return detail::family_table(); }

// Adds a variant to a family's op space from outside the family's folder (a plug-in's variant,
// or a test's: tests/wrong_variant.cc), beside its schedule's binding
// (generators/schedule_registry.h). Call it at static initialisation, before anything plans.
// Throws std::logic_error for an unknown family or a name the op space already has.
template <typename Shape>
void register_variant(const std::string &family, VariantSpec<Shape> spec) {
    const auto it = detail::family_table().find(family);
    if (it == detail::family_table().end()) throw std::logic_error("no schedule family " + family);
    OpSpace<Shape> &space = it->second.template op<Shape>();
    if (space.find(spec.name)) throw std::logic_error("variant " + spec.name + " is registered twice");
    space.variants.push_back(std::move(spec));
}

inline std::string family_names() {
    std::string names;
    for (const auto &[name, space] : families()) names += (names.empty() ? "" : ", ") + name;
    return names;
}

}  // namespace cortado::schedules
