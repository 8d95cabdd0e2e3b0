# Writes the text of INPUT into OUTPUT as a C++ raw string constant named SYMBOL, so a Python
# source file ships inside the binary. Run with cmake -P at build time.
file(READ "${INPUT}" content)
get_filename_component(name "${INPUT}" NAME)
file(WRITE "${OUTPUT}.tmp"
  "// Generated at build time from ${name}; edit that file instead.\n#pragma once\n\n"
  "constexpr const char* ${SYMBOL} = R\"pysource(${content})pysource\";\n")
file(COPY_FILE "${OUTPUT}.tmp" "${OUTPUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUTPUT}.tmp")
