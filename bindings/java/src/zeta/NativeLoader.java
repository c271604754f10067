package zeta;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Loads libzeta and the JNI wrapper without -Djava.library.path, trying in turn:
 * <ol>
 * <li>the directory named by the system property zeta.library.dir, if set;</li>
 * <li>the jar: /zeta/native/OS-ARCH/libraries.txt lists the libraries in load order (libzeta first, by
 *     absolute path, so the wrapper's dependency on it is already met), and beside.txt, if present, files that
 *     must sit beside them without being loaded (the flavours a portable libzeta chooses from when it loads);
 *     they are extracted to a temporary directory, loaded, and deleted at once (a loaded library stays
 *     mapped);</li>
 * <li>libzeta_java.so beside the jar or class directory (its RPATH $ORIGIN finds libzeta beside it);</li>
 * <li>System.loadLibrary("zeta_java").</li>
 * </ol>
 */
final class NativeLoader {
  private static final String WRAPPER = System.mapLibraryName("zeta_java");
  private static boolean loaded;

  private NativeLoader() {}

  static synchronized void load() {
    if (loaded) {
      return;
    }
    List<String> tried = new ArrayList<>();
    String dir = System.getProperty("zeta.library.dir");
    if (dir != null) {
      System.load(Paths.get(dir, WRAPPER).toAbsolutePath().toString());
    } else if (!loadFromJar(tried) && !loadBesideClasses(tried)) {
      try {
        System.loadLibrary("zeta_java");
      } catch (UnsatisfiedLinkError e) {
        throw new UnsatisfiedLinkError("zeta: native libraries not found (tried " + tried
                                       + " and java.library.path): " + e.getMessage());
      }
    }
    loaded = true;
  }

  private static String platform() {
    String os = System.getProperty("os.name").toLowerCase(Locale.ROOT).replaceAll("[^a-z]", "");
    String arch = System.getProperty("os.arch").toLowerCase(Locale.ROOT);
    return os + "-" + (arch.equals("amd64") ? "x86_64" : arch);
  }

  /** The names listed in the jar's index file, one a line; null when the jar has no such file. */
  private static List<String> readIndex(String index) {
    List<String> names = new ArrayList<>();
    try (InputStream in = NativeLoader.class.getResourceAsStream(index)) {
      if (in == null) {
        return null;
      }
      BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
      for (String line = reader.readLine(); line != null; line = reader.readLine()) {
        if (!line.isBlank()) {
          names.add(line.strip());
        }
      }
    } catch (IOException e) {
      throw new UnsatisfiedLinkError("zeta: cannot read " + index + ": " + e);
    }
    return names;
  }

  private static boolean loadFromJar(List<String> tried) {
    String base = "/zeta/native/" + platform() + "/";
    tried.add("jar:" + base);
    List<String> libraries = readIndex(base + "libraries.txt");
    if (libraries == null) {
      return false;
    }
    List<String> beside = readIndex(base + "beside.txt");
    List<String> names = new ArrayList<>(libraries);
    if (beside != null) {
      names.addAll(beside);
    }
    Path dir = null;
    try {
      dir = Files.createTempDirectory("zeta-native");
      for (String name : names) {
        try (InputStream in = NativeLoader.class.getResourceAsStream(base + name)) {
          if (in == null) {
            throw new UnsatisfiedLinkError("zeta: " + base + name + " is missing from the jar");
          }
          Files.copy(in, dir.resolve(name), StandardCopyOption.REPLACE_EXISTING);
        }
      }
      for (String name : libraries) {
        System.load(dir.resolve(name).toAbsolutePath().toString());
      }
      return true;
    } catch (IOException e) {
      throw new UnsatisfiedLinkError("zeta: cannot extract the native libraries: " + e);
    } finally {
      deleteQuietly(dir, names);
    }
  }

  private static boolean loadBesideClasses(List<String> tried) {
    try {
      Path location = Paths.get(NativeLoader.class.getProtectionDomain().getCodeSource().getLocation().toURI());
      Path dir = Files.isDirectory(location) ? location : location.getParent();
      if (dir == null) {
        return false;
      }
      tried.add(dir.toString());
      Path wrapper = dir.resolve(WRAPPER);
      if (Files.exists(wrapper)) {
        System.load(wrapper.toAbsolutePath().toString());
        return true;
      }
    } catch (URISyntaxException | SecurityException | NullPointerException e) {
      tried.add("(no code source: " + e + ")");
    }
    return false;
  }

  private static void deleteQuietly(Path dir, List<String> names) {
    if (dir == null) {
      return;
    }
    for (String name : names) {
      try {
        Files.deleteIfExists(dir.resolve(name));
      } catch (IOException e) {
        dir.resolve(name).toFile().deleteOnExit();
      }
    }
    try {
      Files.deleteIfExists(dir);
    } catch (IOException e) {
      dir.toFile().deleteOnExit();
    }
  }
}
