print "hi\n";
