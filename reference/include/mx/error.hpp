// mx/error.hpp - typed errors raised by libmxref for bad input.
//
// The reference never aborts on bad input: unknown names, impossible shapes,
// null pointers and malformed files raise one of these, with a one-line
// message that says what was wrong and what was expected.
#pragma once

#include <stdexcept>
#include <string>

namespace mx {

// Base of every error libmxref throws.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// An argument outside the function's domain (block size 0, null pointer,
// a policy that does not apply to the format, ...).
class InvalidArgument : public Error {
 public:
  using Error::Error;
};

// A recipe, policy, layout, format or type name that is not known.
class UnknownName : public Error {
 public:
  using Error::Error;
};

// A shape whose element or byte count does not fit 64-bit indices, or that
// does not match the buffer it describes.
class ShapeError : public Error {
 public:
  using Error::Error;
};

// Malformed input file (CSV, .npy, JSON side file): the message names the
// file, line and column where they apply.
class ParseError : public Error {
 public:
  using Error::Error;
};

}  // namespace mx
