// test_example.cpp - placeholder.
