package dev.orchestrate.yaml;

/**
 * One validation problem, located in a file where the parser can tell. Rendered the way compilers
 * do, {@code backlog.yaml:12:5: unknown field 'depends'}, so editors can jump to it.
 *
 * @param file   the file as the user named it
 * @param line   1-based line, or 0 when unknown
 * @param column 1-based column, or 0 when unknown
 */
public record Problem(String file, int line, int column, String message) {
  public Problem {
    if (file == null || message == null) {
      throw new IllegalArgumentException("file and message are required");
    }
  }

  @Override
  public String toString() {
    if (line <= 0) {
      return file + ": " + message;
    }
    return file + ":" + line + ":" + column + ": " + message;
  }
}
