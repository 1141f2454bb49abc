import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassFileVersion;
import java.lang.classfile.ClassHierarchyResolver;
import java.lang.classfile.ClassModel;
import java.lang.classfile.ClassTransform;
import java.lang.classfile.CodeTransform;
import java.lang.constant.ClassDesc;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import java.util.zip.ZipOutputStream;

/**
 * Rewrites the class files of a jar older than Java 6 (version 50) as Java 8 class files (version 52) with stack
 * maps, leaving their code as it is: {@code java UpgradeClassFiles.java JAR}, in place.
 *
 * <p>Why: picocli ships Java 5 class files. The JVM verifies those with the old, type-inferring verifier, which took
 * about 0.18 s of each {@code aorta} start on the 2-core dev VM (more than the rest of start-up), and an AOT cache
 * cannot hold them linked ("Skipping ...: Old class has been linked"), so they were verified again at every start.
 * With stack maps they are verified once, when the AOT cache is written, and come linked out of it.
 *
 * <p>Class files of version 50 or more, and every other entry, are copied unchanged. Run at {@code package} by the
 * distribution module (a single-file source program of JDK 25: the class-file API generates the stack maps).
 */
public final class UpgradeClassFiles {
    private static final int JAVA_8 = ClassFile.JAVA_8_VERSION;

    public static void main(String[] args) throws IOException {
        if (args.length != 1) {
            throw new IllegalArgumentException("usage: java UpgradeClassFiles.java JAR (rewritten in place)");
        }
        Path jar = Path.of(args[0]);
        Path upgraded = jar.resolveSibling(jar.getFileName() + ".upgraded");
        int rewritten = 0;
        try (ZipFile in = new ZipFile(jar.toFile());
             ZipOutputStream out = new ZipOutputStream(Files.newOutputStream(upgraded))) {
            // stack maps need the common superclass of two types: the jar's own classes are read from the jar
            ClassHierarchyResolver hierarchy = ClassHierarchyResolver.defaultResolver().orElse(
                    ClassHierarchyResolver.ofResourceParsing(desc -> open(in, desc)));
            ClassFile classFiles = ClassFile.of(ClassFile.ClassHierarchyResolverOption.of(hierarchy),
                    ClassFile.StackMapsOption.GENERATE_STACK_MAPS);
            for (ZipEntry entry : in.stream().toList()) {
                byte[] bytes;
                try (InputStream s = in.getInputStream(entry)) {
                    bytes = s.readAllBytes();
                }
                if (entry.getName().endsWith(".class") && !entry.getName().endsWith("module-info.class")) {
                    ClassModel model = classFiles.parse(bytes);
                    if (model.majorVersion() < ClassFile.JAVA_6_VERSION) {
                        bytes = classFiles.transformClass(model, upgrade());
                        rewritten++;
                    }
                }
                ZipEntry copy = new ZipEntry(entry.getName());
                copy.setTime(entry.getTime());
                out.putNextEntry(copy);
                out.write(bytes);
                out.closeEntry();
            }
        }
        Files.move(upgraded, jar, StandardCopyOption.REPLACE_EXISTING);
        System.out.println("UpgradeClassFiles: " + jar.getFileName() + ": " + rewritten + " class files now version "
                + JAVA_8);
    }

    /** The new version first, then every method body rebuilt (which writes its stack map), the rest as it was. */
    private static ClassTransform upgrade() {
        ClassTransform version = (builder, element) -> {
            if (element instanceof ClassFileVersion) {
                builder.withVersion(JAVA_8, 0);
            } else {
                builder.with(element);
            }
        };
        return version.andThen(ClassTransform.transformingMethodBodies(CodeTransform.ACCEPT_ALL));
    }

    private static InputStream open(ZipFile jar, ClassDesc desc) {
        String name = desc.descriptorString();
        ZipEntry entry = jar.getEntry(name.substring(1, name.length() - 1) + ".class");
        try {
            return entry == null ? null : jar.getInputStream(entry);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
