#include "report/stats/query_shape.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstring>
#include <vector>

namespace usdt::report {

namespace {

enum class Tok : unsigned char { word, quoted, constant, op, open, close, comma, dot, cast, other };

struct Token {
  Tok kind;
  std::string_view text;  // of the statement; words are lower-cased on output
};

bool is_ident_start(unsigned char c) { return std::isalpha(c) || c == '_' || c >= 0x80; }
bool is_ident_char(unsigned char c) { return is_ident_start(c) || std::isdigit(c) || c == '$'; }
bool is_op_char(char c) { return c != '\0' && std::strchr("+-*/<>=~!@#%^&|`?", c) != nullptr; }

// The SQL lexer: the tokens of s, comments and whitespace left out.
class Lexer {
 public:
  explicit Lexer(std::string_view s) : s_(s) {}

  std::vector<Token> tokens() {
    std::vector<Token> out;
    while (skip_space_and_comments()) out.push_back(next());
    return out;
  }

 private:
  char at(size_t i) const { return i < s_.size() ? s_[i] : '\0'; }

  bool skip_space_and_comments() {
    while (i_ < s_.size()) {
      const char c = s_[i_];
      if (std::isspace(static_cast<unsigned char>(c))) {
        ++i_;
      } else if (c == '-' && at(i_ + 1) == '-') {
        while (i_ < s_.size() && s_[i_] != '\n') ++i_;
      } else if (c == '/' && at(i_ + 1) == '*') {
        skip_block_comment();
      } else {
        return true;
      }
    }
    return false;
  }

  void skip_block_comment() {  // nested, as PostgreSQL's are
    int depth = 0;
    while (i_ < s_.size()) {
      if (s_[i_] == '/' && at(i_ + 1) == '*') {
        ++depth;
        i_ += 2;
      } else if (s_[i_] == '*' && at(i_ + 1) == '/') {
        i_ += 2;
        if (--depth == 0) return;
      } else {
        ++i_;
      }
    }
  }

  Token take(Tok kind, size_t from) { return Token{kind, s_.substr(from, i_ - from)}; }

  // A quoted run from the opening quote at i_: doubled quotes stay inside;
  // backslashes escape with backslash_escapes (E'...').
  void skip_quoted(char quote, bool backslash_escapes) {
    ++i_;
    while (i_ < s_.size()) {
      const char c = s_[i_++];
      if (backslash_escapes && c == '\\') {
        ++i_;
      } else if (c == quote) {
        if (at(i_) != quote) return;
        ++i_;
      }
    }
    i_ = std::min(i_, s_.size());
  }

  // $tag$ at i_ (tag possibly empty): its length, or 0 when it is not one.
  size_t dollar_tag_length() const {
    size_t j = i_ + 1;
    if (j < s_.size() && is_ident_start(static_cast<unsigned char>(s_[j]))) {
      while (j < s_.size() && is_ident_char(static_cast<unsigned char>(s_[j])) && s_[j] != '$') ++j;
    }
    return at(j) == '$' ? j + 1 - i_ : 0;
  }

  void skip_number() {
    if (s_[i_] == '0' && std::strchr("xXoObB", at(i_ + 1)) &&
        std::isxdigit(static_cast<unsigned char>(at(i_ + 2)))) {
      i_ += 2;
      while (std::isxdigit(static_cast<unsigned char>(at(i_))) || at(i_) == '_') ++i_;
      return;
    }
    while (std::isdigit(static_cast<unsigned char>(at(i_))) || at(i_) == '_') ++i_;
    if (at(i_) == '.' && at(i_ + 1) != '.') {
      ++i_;
      while (std::isdigit(static_cast<unsigned char>(at(i_)))) ++i_;
    }
    const bool exponent = (at(i_) == 'e' || at(i_) == 'E') &&
                          (std::isdigit(static_cast<unsigned char>(at(i_ + 1))) ||
                           ((at(i_ + 1) == '+' || at(i_ + 1) == '-') &&
                            std::isdigit(static_cast<unsigned char>(at(i_ + 2)))));
    if (exponent) {
      i_ += 2;
      while (std::isdigit(static_cast<unsigned char>(at(i_)))) ++i_;
    }
  }

  // A string constant with a prefix (E'', B'', X'', N'', U&''), or 0.
  size_t prefixed_string_start() const {
    const char c = static_cast<char>(std::tolower(static_cast<unsigned char>(s_[i_])));
    if (std::strchr("ebxn", c) && at(i_ + 1) == '\'') return 1;
    if (c == 'u' && at(i_ + 1) == '&' && at(i_ + 2) == '\'') return 2;
    return 0;
  }

  Token next() {
    const size_t from = i_;
    const char c = s_[i_];
    const unsigned char u = static_cast<unsigned char>(c);
    if (c == '\'') {
      skip_quoted('\'', false);
      return take(Tok::constant, from);
    }
    if (is_ident_start(u)) {
      if (size_t prefix = prefixed_string_start()) {
        const bool escapes = std::tolower(u) == 'e';
        i_ += prefix;
        skip_quoted('\'', escapes);
        return take(Tok::constant, from);
      }
      while (i_ < s_.size() && is_ident_char(static_cast<unsigned char>(s_[i_]))) ++i_;
      return take(Tok::word, from);
    }
    if (c == '"') {
      skip_quoted('"', false);
      return take(Tok::quoted, from);
    }
    if (std::isdigit(u) || (c == '.' && std::isdigit(static_cast<unsigned char>(at(i_ + 1))))) {
      skip_number();
      return take(Tok::constant, from);
    }
    if (c == '$') return dollar(from);
    return punctuation(from);
  }

  Token dollar(size_t from) {
    if (std::isdigit(static_cast<unsigned char>(at(i_ + 1)))) {  // a parameter $n
      ++i_;
      while (std::isdigit(static_cast<unsigned char>(at(i_)))) ++i_;
      return take(Tok::constant, from);
    }
    if (size_t tag = dollar_tag_length()) {
      const std::string_view delimiter = s_.substr(i_, tag);
      const size_t close = s_.find(delimiter, i_ + tag);
      i_ = close == std::string_view::npos ? s_.size() : close + tag;
      return take(Tok::constant, from);
    }
    ++i_;
    return take(Tok::other, from);
  }

  Token punctuation(size_t from) {
    const char c = s_[i_++];
    switch (c) {
      case '(':
      case '[':
        return take(Tok::open, from);
      case ')':
      case ']':
        return take(Tok::close, from);
      case ',':
        return take(Tok::comma, from);
      case '.':
        return take(Tok::dot, from);
      case ';':
        return take(Tok::other, from);
      case ':':
        if (at(i_) == ':') {
          ++i_;
          return take(Tok::cast, from);
        }
        return take(Tok::other, from);
      default:
        break;
    }
    if (!is_op_char(c)) return take(Tok::other, from);
    // An operator: the longest run, stopping where a comment starts; one
    // of several characters that ends in + or - drops them unless it has a
    // character only operators end with (scan.l's rule), so that =-1 is = -1.
    while (is_op_char(at(i_)) && !(at(i_) == '-' && at(i_ + 1) == '-') &&
           !(at(i_) == '/' && at(i_ + 1) == '*'))
      ++i_;
    std::string_view op = s_.substr(from, i_ - from);
    if (op.size() > 1 && op.find_first_of("~!@#%^&|`?") == std::string_view::npos) {
      while (op.size() > 1 && (op.back() == '+' || op.back() == '-')) op.remove_suffix(1);
      i_ = from + op.size();
    }
    return take(Tok::op, from);
  }

  std::string_view s_;
  size_t i_ = 0;
};

std::string lower(std::string_view w) {
  std::string s(w);
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// Words after which a minus starts a negative constant, and which are
// followed by a space before '(' (not function names).
bool is_keyword(const std::string& w) {
  static constexpr std::array<const char*, 36> kWords = {
      "all",    "and",    "any",    "array", "as",     "between",   "by",     "case",     "else",
      "exists", "from",   "having", "in",    "into",   "is",        "join",   "like",     "limit",
      "not",    "offset", "on",     "or",    "return", "returning", "select", "set",      "some",
      "then",   "using",  "values", "when",  "where",  "with",      "ilike",  "distinct", "over"};
  return std::any_of(kWords.begin(), kWords.end(), [&](const char* k) { return w == k; });
}

struct Shaped {
  Tok kind;
  std::string text;
};

// Constants to placeholders: a minus before a number that cannot be a
// subtraction joins it; IN (...) and ARRAY[...] of constants only fold.
std::vector<Shaped> placeholders(const std::vector<Token>& tokens) {
  std::vector<Shaped> out;
  int next = 1;
  auto placeholder = [&] { return "$" + std::to_string(next++); };
  for (size_t i = 0; i < tokens.size(); ++i) {
    const Token& t = tokens[i];
    const bool operand_before =
        !out.empty() && (out.back().kind == Tok::constant || out.back().kind == Tok::close ||
                         out.back().kind == Tok::quoted ||
                         (out.back().kind == Tok::word && !is_keyword(out.back().text)));
    const bool negative = t.kind == Tok::op && t.text == "-" && i + 1 < tokens.size() &&
                          tokens[i + 1].kind == Tok::constant && !operand_before;
    if (negative) ++i;
    if (negative || t.kind == Tok::constant) {
      out.push_back({Tok::constant, placeholder()});
      continue;
    }
    const bool list_head = t.kind == Tok::open && !out.empty() && out.back().kind == Tok::word &&
                           ((t.text == "(" && out.back().text == "in") ||
                            (t.text == "[" && out.back().text == "array"));
    if (list_head) {
      // Constants separated by commas up to the closing bracket: one placeholder.
      size_t j = i + 1, items = 0;
      while (j < tokens.size()) {
        if (tokens[j].kind == Tok::op && tokens[j].text == "-" && j + 1 < tokens.size() &&
            tokens[j + 1].kind == Tok::constant)
          ++j;
        if (tokens[j].kind != Tok::constant) break;
        ++items;
        if (j + 1 < tokens.size() && tokens[j + 1].kind == Tok::comma) {
          j += 2;
          continue;
        }
        ++j;
        break;
      }
      if (items >= 2 && j < tokens.size() && tokens[j].kind == Tok::close) {
        out.push_back({Tok::open, std::string(t.text)});
        out.push_back({Tok::constant, placeholder() + " /*, ... */"});
        out.push_back({Tok::close, std::string(tokens[j].text)});
        i = j;
        continue;
      }
    }
    out.push_back({t.kind, t.kind == Tok::word ? lower(t.text) : std::string(t.text)});
  }
  return out;
}

bool space_between(const Shaped& a, const Shaped& b) {
  if (a.kind == Tok::open || a.kind == Tok::dot || a.kind == Tok::cast) return false;
  if (b.kind == Tok::close || b.kind == Tok::comma || b.kind == Tok::dot || b.kind == Tok::cast)
    return false;
  if (b.kind == Tok::other && b.text == ";") return false;
  if (b.kind == Tok::open) {
    if (b.text == "[") return false;
    return !(a.kind == Tok::quoted || (a.kind == Tok::word && !is_keyword(a.text)));
  }
  return true;
}

}  // namespace

std::string sql_shape(std::string_view statement) {
  const std::vector<Shaped> shaped = placeholders(Lexer(statement).tokens());
  std::string out;
  for (size_t i = 0; i < shaped.size(); ++i) {
    if (i > 0 && space_between(shaped[i - 1], shaped[i])) out += ' ';
    out += shaped[i].text;
  }
  return out;
}

std::string digits_shape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    const unsigned char before = i > 0 ? static_cast<unsigned char>(text[i - 1]) : ' ';
    const bool starts_number = std::isdigit(c) && !(std::isalnum(before) || before == '_');
    if (!starts_number) {
      out += text[i++];
      continue;
    }
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
    if (i + 1 < text.size() && text[i] == '.' &&
        std::isdigit(static_cast<unsigned char>(text[i + 1]))) {
      ++i;
      while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
    }
    out += '#';
  }
  return out;
}

std::string shape_of(KeyShape shape, std::string_view text) {
  switch (shape) {
    case KeyShape::sql:
      return sql_shape(text);
    case KeyShape::digits:
      return digits_shape(text);
    case KeyShape::none:
      break;
  }
  return std::string(text);
}

const char* key_shape_name(KeyShape shape) {
  switch (shape) {
    case KeyShape::sql:
      return "sql";
    case KeyShape::digits:
      return "digits";
    case KeyShape::none:
      break;
  }
  return "";
}

}  // namespace usdt::report
