// "Did you mean": the candidate nearest to a misspelt word (an option, a target, a layer type).
#pragma once

#include <string>
#include <vector>

namespace cortado {

// The candidate nearest to `word` by edit distance, if it is close enough to be a typo (a third
// of the word, at least 1 and at most 3 edits); else "".
std::string nearest_word(const std::string &word, const std::vector<std::string> &candidates);

}  // namespace cortado
