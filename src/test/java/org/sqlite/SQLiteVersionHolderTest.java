package org.sqlite;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.Properties;
import org.junit.jupiter.api.Test;

/** orchestrate's SQLiteJDBCLoader$VersionHolder against the library's version and its own class. */
class SQLiteVersionHolderTest {
  @Test
  void gives_the_loader_the_version_the_library_declares() throws Exception {
    URL jar = JDBC.class.getProtectionDomain().getCodeSource().getLocation();
    assertTrue(jar.getPath().contains("sqlite-jdbc"), "the driver comes from sqlite-jdbc's jar: " + jar);
    Properties pom = new Properties();
    try (URLClassLoader library = new URLClassLoader(new URL[] {jar}, ClassLoader.getPlatformClassLoader());
        InputStream in = library.getResourceAsStream("META-INF/maven/org.xerial/sqlite-jdbc/pom.properties")) {
      assertNotNull(in, "sqlite-jdbc's pom.properties");
      pom.load(in);
      // What the library's own VersionHolder computes, through its own class.
      Class<?> theirs = library.loadClass("org.sqlite.SQLiteJDBCLoader");
      Object theirVersion = theirs.getMethod("getVersion").invoke(null);
      assertEquals(pom.getProperty("version"), theirVersion);
    }
    assertEquals(pom.getProperty("version"), SQLiteJDBCLoader.getVersion(),
        "sqlite-jdbc was upgraded: set the version in src/main/java/org/sqlite/SQLiteJDBCLoader$VersionHolder.java");
    // By name: javac takes the name for the library's nested class, not for ours.
    Class<?> ours = Class.forName("org.sqlite.SQLiteJDBCLoader$VersionHolder");
    assertTrue(ours.getProtectionDomain().getCodeSource().getLocation().getPath()
        .contains("classes"), "ours is the one on the class path");
  }

  @Test
  void the_loader_loads_the_native_library_through_it() throws Exception {
    assertTrue(SQLiteJDBCLoader.initialize());
    String[] parts = SQLiteJDBCLoader.getVersion().split("\\.");
    assertEquals(Integer.parseInt(parts[0]), SQLiteJDBCLoader.getMajorVersion());
    assertEquals(Integer.parseInt(parts[1]), SQLiteJDBCLoader.getMinorVersion());
  }
}
