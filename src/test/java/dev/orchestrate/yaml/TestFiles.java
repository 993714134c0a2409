package dev.orchestrate.yaml;

import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.function.Executable;

/** Writes test files into a temporary directory and reads back the problems a load reports. */
public final class TestFiles {
  private final Path dir;

  public TestFiles(Path dir) {
    this.dir = dir;
  }

  public Path write(String name, String text) {
    try {
      Path file = dir.resolve(name);
      Files.createDirectories(file.getParent());
      Files.writeString(file, text);
      return file;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Copies {@code src/test/resources/backlog/<name>} into the directory. */
  public Path copyResource(String name) {
    try (InputStream in = TestFiles.class.getResourceAsStream("/backlog/" + name)) {
      if (in == null) {
        throw new IllegalArgumentException("no test resource backlog/" + name);
      }
      Path file = dir.resolve(name);
      Files.createDirectories(file.getParent());
      Files.copy(in, file);
      return file;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The problems of a failed load as {@code line:column: message}, in the order reported. */
  public static List<String> problems(Executable load) {
    ValidationException e = assertThrows(ValidationException.class, load);
    return e.problems().stream().map(p -> p.line() + ":" + p.column() + ": " + p.message()).toList();
  }

  public static List<Problem> rawProblems(Executable load) {
    return assertThrows(ValidationException.class, load).problems();
  }
}
