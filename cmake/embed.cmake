# embed.cmake - a C file holding the bytes of a file, as an array and its size:
#   cmake -DIN=file -DOUT=file.c -DNAME=symbol -P embed.cmake
# (The 3D viewer's page template is compiled into the torpor command this way.)
file(READ "${IN}" hex HEX)
string(LENGTH "${hex}" digits)
math(EXPR size "${digits} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
string(REGEX REPLACE "((0x..,){24})" "\\1\n" bytes "${bytes}")
file(WRITE "${OUT}" "/* Generated from ${IN} by cmake/embed.cmake. */\n#include <stddef.h>\n"
     "extern const unsigned char ${NAME}[];\nextern const size_t ${NAME}_size;\n"
     "const unsigned char ${NAME}[] = {\n${bytes}0};\nconst size_t ${NAME}_size = ${size};\n")
