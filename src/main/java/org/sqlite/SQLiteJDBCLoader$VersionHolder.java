package org.sqlite;

/**
 * orchestrate's replacement for sqlite-jdbc's {@code SQLiteJDBCLoader.VersionHolder}, which the
 * build leaves out of the shaded jar (pom.xml), as it does {@link SQLiteConnectionConfig}. The
 * library's class finds its version at class initialisation by looking its {@code pom.properties} up
 * as a resource (the JDK's module image searched first, then the jar opened again), reading it as
 * {@link java.util.Properties} and cleaning it with a regular expression: 5 to 7 % of the main
 * thread of every short command, before any of orchestrate's work (docs/benchmarks.md, issue 46,
 * item 5). The loader reads the version for its temp-file names and nothing else.
 *
 * <p>The version is the one in pom.xml; {@code SQLiteVersionHolderTest} reads the library's own
 * file and fails the build when an upgrade leaves this constant behind. Its name is the nested
 * class's binary name, so the library's {@code SQLiteJDBCLoader} links to it unchanged (it calls
 * {@code access$000}, as code compiled for Java 8 reaches a nested class's private field).
 */
public final class SQLiteJDBCLoader$VersionHolder {
  private static final String VERSION = "3.54.1.0";

  private SQLiteJDBCLoader$VersionHolder() {
  }

  static String access$000() {
    return VERSION;
  }
}
