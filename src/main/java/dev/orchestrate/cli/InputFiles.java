package dev.orchestrate.cli;

import java.nio.file.Files;
import java.nio.file.Path;

/** Why a file named on the command line cannot be read as one, in the words of an error message. */
final class InputFiles {
  private InputFiles() {
  }

  /** {@code does not exist}, {@code is a directory, not a file} or {@code is not a regular file (...)}. */
  static String whyNotAFile(Path file) {
    if (Files.isDirectory(file)) {
      return "is a directory, not a file";
    }
    if (Files.exists(file)) {
      return "is not a regular file (a pipe, a device or a socket)";
    }
    return "does not exist";
  }
}
