process.stdout.write("weft\n");
