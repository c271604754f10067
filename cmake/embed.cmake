# Turns a binary file into a C++ source defining a byte array and its length (run with cmake -P).
# Inputs: INPUT (file), OUTPUT (.cpp), SYMBOL (C++ identifier inside namespace zeta::embedded).
file(READ "${INPUT}" hex HEX)
string(LENGTH "${hex}" hex_length)
math(EXPR byte_count "${hex_length} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
file(WRITE "${OUTPUT}.tmp"
  "// Generated from ${INPUT} by cmake/embed.cmake; do not edit.\n"
  "#include <cstddef>\n"
  "namespace zeta::embedded {\n"
  "extern const unsigned char ${SYMBOL}[];\n"
  "extern const std::size_t ${SYMBOL}_size;\n"
  "const unsigned char ${SYMBOL}[] = {${bytes}};\n"
  "const std::size_t ${SYMBOL}_size = ${byte_count};\n"
  "}  // namespace zeta::embedded\n")
file(RENAME "${OUTPUT}.tmp" "${OUTPUT}")
