# Builds zeta.jar (run with cmake -P from java/CMakeLists.txt): compiles every .java file of SOURCE_DIRS
# (SWIG's output is only known at build time, hence the glob here), then packs the classes and the native
# LIBRARIES, renamed to LIBRARY_NAMES, under zeta/native/PLATFORM/ with libraries.txt giving the load order (and
# beside.txt the files of BESIDE, which are not loaded). The
# manifest's Implementation-Version is VERSION, the project's (capi/zeta.h's).
file(REMOVE_RECURSE ${CLASSES})
file(MAKE_DIRECTORY ${CLASSES})
set(sources)
foreach(dir IN LISTS SOURCE_DIRS)
  file(GLOB found ${dir}/*.java)
  list(APPEND sources ${found})
endforeach()
execute_process(COMMAND ${JAVAC} --release 11 -Xlint:all -Werror -encoding UTF-8 -d ${CLASSES} ${sources}
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "javac failed")
endif()

set(native ${CLASSES}/zeta/native/${PLATFORM})
file(MAKE_DIRECTORY ${native})
set(index "")
foreach(library name IN ZIP_LISTS LIBRARIES LIBRARY_NAMES)
  # Copies the file a symlink points to: the jar holds real files.
  file(COPY_FILE ${library} ${native}/${name})
  string(APPEND index "${name}\n")
endforeach()
file(WRITE ${native}/libraries.txt "${index}")
# BESIDE: files extracted beside those without being loaded (a portable libzeta's flavours, which it loads itself).
set(beside_index "")
foreach(file IN LISTS BESIDE)
  get_filename_component(name ${file} NAME)
  file(COPY_FILE ${file} ${native}/${name})
  string(APPEND beside_index "${name}\n")
endforeach()
if(beside_index)
  file(WRITE ${native}/beside.txt "${beside_index}")
endif()

set(manifest ${CLASSES}.manifest)
file(WRITE ${manifest} "Implementation-Title: zeta\nImplementation-Version: ${VERSION}\n")
file(REMOVE ${OUTPUT})
execute_process(COMMAND ${JAR} --create --file ${OUTPUT} --manifest ${manifest} -C ${CLASSES} . RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "jar failed")
endif()
