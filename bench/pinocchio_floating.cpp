// Pinocchio's own in-process cost of forward dynamics on a free-flyer root (`aba` with
// `JointModelFreeFlyer`), and of contact-constrained forward dynamics with point contacts at
// the feet (3D, LOCAL_WORLD_ALIGNED): `constraintDynamics` (its default proximal settings, no
// damping) and the older `forwardDynamics(q, v, tau, J, gamma)` with the stacked feet
// Jacobian and drift computed in the timed call (computeJointJacobians, forwardKinematics with
// zero acceleration, getFrameJacobian and getFrameClassicalAcceleration per foot). Built by
// bench/compare.sh (part `floating`) against the headers and libraries of the `pin` wheel.
//
// Input on stdin (written by bench/floating.py): the number of robots, then per robot
//   the URDF path (one line), the number of feet F and F frame names, the number of states S,
//   then S times q (nq), v (nv), tau (nv − 6 joint efforts),
// all in Pinocchio's own joint order.
// Output on stdout: one JSON object per robot and line,
//   {"urdf": path, "nq": .., "nv": .., "aba_ns": .., "constraint_dynamics_ns": ..,
//    "forward_dynamics_ns": .., "accelerations": [[...], ...], "contact_accelerations": [...]},
// each time the nanoseconds per call, best of 7 runs cycling through the states (the contact
// figures only when F > 0). Pinocchio 4 marks RigidConstraintModel, constraintDynamics and
// this forwardDynamics deprecated ("the API will change"): still the documented ones, so the
// deprecation warnings are silenced.
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#include <pinocchio/algorithm/aba.hpp>
#include <pinocchio/algorithm/constrained-dynamics.hpp>
#include <pinocchio/algorithm/contact-dynamics.hpp>
#include <pinocchio/algorithm/frames.hpp>
#include <pinocchio/algorithm/jacobian.hpp>
#include <pinocchio/algorithm/kinematics.hpp>
#include <pinocchio/multibody.hpp>
#include <pinocchio/parsers/urdf.hpp>

#include "ns_per_call.hpp"

#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

using namespace pinocchio;

static void print_rows(const char* key, const std::vector<Eigen::VectorXd>& rows) {
  std::printf(", \"%s\": [", key);
  for (size_t s = 0; s < rows.size(); ++s) {
    std::printf(s ? ", [" : "[");
    for (int i = 0; i < rows[s].size(); ++i) std::printf(i ? ", %.17g" : "%.17g", rows[s][i]);
    std::printf("]");
  }
  std::printf("]");
}

int main() {
  int robots = 0;
  std::cin >> robots;
  for (int k = 0; k < robots; ++k) {
    std::string path;
    int feet = 0, count = 0;
    std::cin >> std::ws;
    std::getline(std::cin, path);
    std::cin >> feet;
    std::vector<std::string> names(feet);
    for (auto& name : names) std::cin >> name;
    std::cin >> count;
    Model model;
    pinocchio::urdf::buildModel(path, JointModelFreeFlyer(), model);
    Data data(model);
    std::vector<Eigen::VectorXd> qs, vs, taus;
    for (int s = 0; s < count; ++s) {
      Eigen::VectorXd q(model.nq), v(model.nv), tau = Eigen::VectorXd::Zero(model.nv);
      for (int i = 0; i < model.nq; ++i) std::cin >> q[i];
      for (int i = 0; i < model.nv; ++i) std::cin >> v[i];
      for (int i = 6; i < model.nv; ++i) std::cin >> tau[i];
      qs.push_back(q);
      vs.push_back(v);
      taus.push_back(tau);
    }
    const double aba_ns =
        ns_per_call(count, [&](int s) { return aba(model, data, qs[s], vs[s], taus[s])[0]; });
    std::vector<Eigen::VectorXd> accelerations, contact_accelerations;
    for (int s = 0; s < count; ++s) accelerations.push_back(aba(model, data, qs[s], vs[s], taus[s]));
    double constraint_ns = 0.0, forward_ns = 0.0;
    if (feet > 0) {
      std::vector<RigidConstraintModel> contacts;
      std::vector<FrameIndex> frames;
      for (const auto& name : names) {
        const FrameIndex frame = model.getFrameId(name);
        frames.push_back(frame);
        contacts.push_back(RigidConstraintModel(CONTACT_3D, model, model.frames[frame].parentJoint,
                                                model.frames[frame].placement, LOCAL_WORLD_ALIGNED));
      }
      std::vector<RigidConstraintData> contact_datas;
      for (const auto& c : contacts) contact_datas.push_back(RigidConstraintData(c));
      initConstraintDynamics(model, data, contacts, contact_datas);
      constraint_ns = ns_per_call(count, [&](int s) {
        return constraintDynamics(model, data, qs[s], vs[s], taus[s], contacts, contact_datas)[0];
      });
      for (int s = 0; s < count; ++s)
        contact_accelerations.push_back(
            constraintDynamics(model, data, qs[s], vs[s], taus[s], contacts, contact_datas));
      const int m = 3 * feet;
      Eigen::MatrixXd jacobian = Eigen::MatrixXd::Zero(m, model.nv);
      Eigen::Matrix<double, 6, Eigen::Dynamic> frame_jacobian(6, model.nv);
      Eigen::VectorXd gamma(m);
      const Eigen::VectorXd zero = Eigen::VectorXd::Zero(model.nv);
      forward_ns = ns_per_call(count, [&](int s) {
        computeJointJacobians(model, data, qs[s]);
        forwardKinematics(model, data, qs[s], vs[s], zero);
        updateFramePlacements(model, data);
        for (int f = 0; f < feet; ++f) {
          frame_jacobian.setZero();
          getFrameJacobian(model, data, frames[f], LOCAL_WORLD_ALIGNED, frame_jacobian);
          jacobian.middleRows(3 * f, 3) = frame_jacobian.topRows(3);
          gamma.segment(3 * f, 3) =
              getFrameClassicalAcceleration(model, data, frames[f], LOCAL_WORLD_ALIGNED).linear();
        }
        return forwardDynamics(model, data, qs[s], vs[s], taus[s], jacobian, gamma)[0];
      });
    }
    std::printf("{\"urdf\": \"%s\", \"nq\": %d, \"nv\": %d, \"aba_ns\": %.3f, "
                "\"constraint_dynamics_ns\": %.3f, \"forward_dynamics_ns\": %.3f",
                path.c_str(), int(model.nq), int(model.nv), aba_ns, constraint_ns, forward_ns);
    print_rows("accelerations", accelerations);
    print_rows("contact_accelerations", contact_accelerations);
    std::printf("}\n");
  }
  return 0;
}
