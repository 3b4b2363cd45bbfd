// Virtual dispatch: abstract bases, overrides several levels deep, calls
// through base pointers and references in heterogeneous containers, virtual
// calls from constructors/destructors (which dispatch to the current class),
// final classes, covariant returns, dynamic_cast and typeid.
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <typeinfo>
#include <vector>

static int failures;
#define CHECK(c)                                                                       \
  do {                                                                                 \
    if (!(c)) {                                                                        \
      std::fprintf(stderr, "virtual_dispatch: line %d: %s\n", __LINE__, #c);           \
      failures++;                                                                      \
    }                                                                                  \
  } while (0)

static std::string trace;

struct Animal {
  explicit Animal(const char *n) : name(n) { trace += "A(" + std::string(kind()) + ")"; }
  virtual ~Animal() { trace += "~A(" + std::string(kind()) + ")"; }
  virtual const char *kind() const { return "animal"; }
  virtual int legs() const = 0;
  virtual int speak(int times) const { return times; }
  virtual Animal *clone() const = 0;
  int total_legs(int n) const { return n * legs(); } // non-virtual calling virtual
  std::string name;
};
struct Dog : Animal {
  explicit Dog(const char *n) : Animal(n) { trace += "D"; }
  ~Dog() override { trace += "~D"; }
  const char *kind() const override { return "dog"; }
  int legs() const override { return 4; }
  int speak(int times) const override { return 10 * times; }
  Dog *clone() const override { return new Dog(*this); } // covariant return
};
struct Puppy final : Dog {
  explicit Puppy(const char *n) : Dog(n) {}
  const char *kind() const override { return "puppy"; }
  int speak(int times) const override { return Dog::speak(times) + 1; } // qualified call
  Puppy *clone() const override { return new Puppy(*this); }
};
struct Bird : Animal {
  explicit Bird(const char *n, bool flies) : Animal(n), can_fly(flies) {}
  const char *kind() const override { return can_fly ? "bird" : "penguin"; }
  int legs() const override { return 2; }
  Bird *clone() const override { return new Bird(*this); }
  bool can_fly;
};
struct Snake : Animal {
  using Animal::Animal;
  int legs() const override { return 0; }
  int speak(int times) const override { return -times; }
  Snake *clone() const override { return new Snake(*this); }
};

// Visitor-style double dispatch.
struct Circle; struct Box;
struct ShapeVisitor {
  virtual ~ShapeVisitor() = default;
  virtual long visit(const Circle &) = 0;
  virtual long visit(const Box &) = 0;
};
struct Shape { virtual ~Shape() = default; virtual long accept(ShapeVisitor &v) const = 0; };
struct Circle : Shape { long r; explicit Circle(long x) : r(x) {} long accept(ShapeVisitor &v) const override { return v.visit(*this); } };
struct Box : Shape { long w, h; Box(long a, long b) : w(a), h(b) {} long accept(ShapeVisitor &v) const override { return v.visit(*this); } };
struct Area3 : ShapeVisitor { // 3*r*r approximates pi r^2 in integers
  long visit(const Circle &c) override { return 3 * c.r * c.r; }
  long visit(const Box &b) override { return b.w * b.h; }
};
struct Perimeter : ShapeVisitor {
  long visit(const Circle &c) override { return 6 * c.r; }
  long visit(const Box &b) override { return 2 * (b.w + b.h); }
};

int main() {
  {
    Puppy p("rex");
    CHECK(trace == "A(animal)D"); // kind() during Animal's constructor is Animal's
  }
  CHECK(trace == "A(animal)D~D~A(animal)");
  trace.clear();

  std::vector<std::unique_ptr<Animal>> zoo;
  zoo.emplace_back(new Dog("fido"));
  zoo.emplace_back(new Bird("tweety", true));
  zoo.emplace_back(new Puppy("bit"));
  zoo.emplace_back(new Snake("kaa"));
  zoo.emplace_back(new Bird("pingu", false));
  int legs = 0, noise = 0;
  std::string kinds;
  for (const auto &a : zoo) {
    legs += a->legs();
    noise += a->speak(3);
    kinds += a->kind();
    kinds += ' ';
  }
  CHECK(legs == 4 + 2 + 4 + 0 + 2);
  CHECK(noise == 30 + 3 + 31 - 3 + 3);
  CHECK(kinds == "dog bird puppy animal penguin ");
  CHECK(zoo[2]->total_legs(5) == 20);

  const Animal &ref = *zoo[2];
  CHECK(dynamic_cast<const Dog *>(&ref) != nullptr && dynamic_cast<const Puppy *>(&ref) != nullptr);
  CHECK(dynamic_cast<const Bird *>(&ref) == nullptr);
  const Animal &first = *zoo[0];
  CHECK(typeid(ref) == typeid(Puppy) && typeid(first) == typeid(Dog) && typeid(first) != typeid(Puppy));
  try {
    (void)dynamic_cast<const Snake &>(ref);
    CHECK(false);
  } catch (const std::bad_cast &) {
  }

  std::unique_ptr<Animal> copy(zoo[2]->clone());
  CHECK(std::strcmp(copy->kind(), "puppy") == 0 && copy->name == "bit" && copy->speak(1) == 11);
  std::unique_ptr<Dog> dcopy(static_cast<Dog *>(zoo[0].get())->clone());
  CHECK(dcopy->speak(2) == 20);

  int dogs = 0;
  for (const auto &a : zoo)
    if (auto *d = dynamic_cast<Dog *>(a.get())) dogs += d->legs();
  CHECK(dogs == 8);

  trace.clear();
  for (auto &a : zoo) a.reset(); // deletes through base pointers: derived destructors run
  zoo.clear();
  CHECK(trace == "~D~A(animal)~A(animal)~D~A(animal)~A(animal)~A(animal)");
  trace.clear();
  copy.reset();
  dcopy.reset();
  CHECK(trace == "~D~A(animal)~D~A(animal)");

  std::vector<std::unique_ptr<Shape>> shapes;
  for (long i = 1; i <= 10; i++) {
    if (i % 3 == 0) shapes.emplace_back(new Circle(i));
    else shapes.emplace_back(new Box(i, i + 1));
  }
  Area3 area;
  Perimeter per;
  long total_area = 0, total_per = 0;
  for (const auto &s : shapes) {
    total_area += s->accept(area);
    total_per += s->accept(per);
  }
  CHECK(total_area == 3 * (9 + 36 + 81) + (2 + 6 + 20 + 30 + 56 + 72 + 110));
  CHECK(total_per == 6 * (3 + 6 + 9) + 2 * (3 + 5 + 9 + 11 + 15 + 17 + 21));

  if (failures) {
    std::fprintf(stderr, "virtual_dispatch: %d failure(s)\n", failures);
    return 1;
  }
  return 0;
}
