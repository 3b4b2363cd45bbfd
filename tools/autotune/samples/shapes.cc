// Sample for check-passes.sh: the C++ counterpart of the C samples. Virtual
// dispatch, exceptions (invoke/landingpad edges, which some GPU-oriented
// passes cannot handle), RAII with unique_ptr, templates, std::string,
// std::vector, std::map and a lambda passed to std::sort.
#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

struct Shape {
    virtual ~Shape() = default;
    virtual double area() const = 0;
    virtual std::string name() const = 0;
};

struct Circle : Shape {
    double r;
    explicit Circle(double r) : r(r) {
        if (r < 0)
            throw std::invalid_argument("negative radius");
    }
    double area() const override { return 3.14159265 * r * r; }
    std::string name() const override { return "circle"; }
};

struct Rect : Shape {
    double w, h;
    Rect(double w, double h) : w(w), h(h) {}
    double area() const override { return w * h; }
    std::string name() const override { return w == h ? "square" : "rect"; }
};

struct Polygon : Shape {
    std::vector<std::pair<double, double>> pts;
    double area() const override {
        double a = 0;
        for (size_t i = 0; i < pts.size(); i++) {
            const auto &p = pts[i];
            const auto &q = pts[(i + 1) % pts.size()];
            a += p.first * q.second - q.first * p.second;
        }
        return a < 0 ? -a / 2 : a / 2;
    }
    std::string name() const override { return "polygon/" + std::to_string(pts.size()); }
};

template <typename T, typename F> T fold(const std::vector<T> &v, T init, F f) {
    for (const auto &x : v)
        init = f(init, x);
    return init;
}

std::unique_ptr<Shape> make(int k, double x) {
    switch (k % 4) {
    case 0: return std::make_unique<Circle>(x);
    case 1: return std::make_unique<Rect>(x, x + 1);
    case 2: {
        auto p = std::make_unique<Polygon>();
        for (int i = 0; i < 3 + k % 5; i++)
            p->pts.emplace_back(x * (i % 2), x * (i / 2));
        return p;
    }
    default: return std::make_unique<Circle>(-x);
    }
}

class Registry {
  public:
    void add(std::unique_ptr<Shape> s) {
        counts_[s->name()]++;
        shapes_.push_back(std::move(s));
    }
    std::vector<double> areas() const {
        std::vector<double> a;
        a.reserve(shapes_.size());
        for (const auto &s : shapes_)
            a.push_back(s->area());
        std::sort(a.begin(), a.end(), [](double x, double y) { return x > y; });
        return a;
    }
    const std::map<std::string, int> &counts() const { return counts_; }

  private:
    std::vector<std::unique_ptr<Shape>> shapes_;
    std::map<std::string, int> counts_;
};

std::string describe(const Shape &s) {
    std::string n = s.name();
    std::string label(std::move(n)); // basic_string's move constructor
    return label + ": " + std::to_string(s.area());
}

} // namespace

int main(int argc, char **) {
    Registry reg;
    int errors = 0;
    for (int i = 0; i < 12 + argc; i++) {
        try {
            reg.add(make(i, i * 0.5));
        } catch (const std::invalid_argument &e) {
            std::fprintf(stderr, "skipped %d: %s\n", i, e.what());
            errors++;
        }
    }
    std::printf("%s\n", describe(*make(argc, 2.0)).c_str());
    std::vector<double> a = reg.areas();
    for (const auto &kv : reg.counts())
        std::printf("%-10s %d\n", kv.first.c_str(), kv.second);
    double total = fold(a, 0.0, [](double s, double x) { return s + x; });
    std::printf("total %.3f largest %.3f errors %d\n", total, a.empty() ? 0 : a[0], errors);
    return 0;
}
